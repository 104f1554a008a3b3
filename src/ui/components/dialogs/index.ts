// Modal dialogs the app shows over the prompt: questions and permission requests.

export { AskUserDialog, type AskUserDialogProps } from './AskUserDialog.js';
export { ApprovalDialog, APPROVAL_CHOICES, type ApprovalDialogProps, type ApprovalReply } from './ApprovalDialog.js';
export { DialogFrame, OptionList, type DialogFrameProps, type OptionListProps } from './DialogFrame.js';
