export * from './lib/data-streams.module.js';
export * from './lib/data-streams.settings.js';
export { TemplateService } from './lib/templates/template-service.js';
export { DataStreamService } from './lib/streams/data-stream-service.js';
export { RolloverService } from './lib/rollover/rollover-service.js';
export { IlmService } from './lib/ilm/ilm-service.js';
export { IlmRunner } from './lib/ilm/ilm-runner.js';
export { DataStreamLifecycleRunner } from './lib/lifecycle/data-stream-lifecycle.js';
