// The part of the Anthropic SDK the provider uses: the SDK's base client with the Messages
// API attached, and its error classes. The SDK's default export attaches every API it has
// (beta, files, skills, organizations, …): about 480 KB more code to load and evaluate on
// every start for APIs this program never calls.
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';

export { APIConnectionError, APIError } from '@anthropic-ai/sdk/core/error';

export class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this);
}
