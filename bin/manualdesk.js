#!/usr/bin/env node
// Runs the TypeScript engine directly (no build step): tsx registers its loader, then the CLI runs.
import { register } from 'tsx/esm/api';

register();
await import('../native/cli/index.ts');
