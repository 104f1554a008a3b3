// The per-child keys a running task block names on its header line (DESIGN §23): the screen
// knows the configured keys, the blocks only show them. Contract: the value is one short
// line fragment, or undefined for no hint (tests, a block drawn outside the screen).
import { createContext } from 'react';

export const BlockHintContext = createContext<string | undefined>(undefined);
