// Loaded with `node --import` into the binary under test to put it in a stuck state no
// product code may create: one libuv pool thread blocked in open() on the FIFO named by
// OCI_TEST_STUCK_FIFO (as a hung network mount would block it). process.exit would then
// hang joining that thread; the test checks the program still exits on a second Ctrl+C.
import { open } from 'node:fs';

const fifo = process.env.OCI_TEST_STUCK_FIFO;
if (fifo) open(fifo, 'r', () => {});
