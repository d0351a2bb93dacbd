/** The annotation page as every worker of a span study has it (page.js). */

import { startSpanPage, taskData } from "./page.js";

await startSpanPage(taskData());
