export { main } from './cli.js';
export type { CliIo } from './cli.js';
export { DEFAULT_HOST, findHostAdapters } from './hosts.js';
export type { HostAdapter } from './hosts.js';
export { pointsInUse } from './project.js';
export type { HostContext, HostDoctorContext, HostInitContext, HostInitPlan, HostOption, HostSetup, PlannedFile } from './host-setup.js';
