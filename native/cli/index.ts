/** Process entry of the `manualdesk` command. */
import { runCli } from './main.js';

const code = await runCli(process.argv.slice(2));
process.exitCode = code;
