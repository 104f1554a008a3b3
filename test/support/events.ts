// Every event a test sees is checked against the published protocol (src/core/events/schema.ts,
// docs/events.md): the harnesses and fixtures pass events through `validEvent`, so an event
// whose shape drifts from the schema fails the test that produced it.
import { z } from 'zod';
import type { CoreEvent } from '../../src/core/events.js';
import { CoreEventSchema, StreamLineSchema } from '../../src/core/events/schema.js';

export function validEvent(event: unknown): CoreEvent {
  const parsed = CoreEventSchema.safeParse(event);
  if (!parsed.success) throw new Error(`Event does not match the protocol schema:\n${z.prettifyError(parsed.error)}\n${JSON.stringify(event)}`);
  return parsed.data;
}

/** The lines of `run --format json` output, each parsed and checked against the stream schema. */
export function validStreamLines(stdout: string): Array<z.infer<typeof StreamLineSchema>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      const parsed = StreamLineSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`Line ${i + 1} does not match the protocol schema:\n${z.prettifyError(parsed.error)}\n${line}`);
      return parsed.data;
    });
}
