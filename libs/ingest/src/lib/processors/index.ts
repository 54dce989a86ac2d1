import type { ProcessorFactory } from '../processor.js';
import {
  appendProcessor,
  bytesProcessor,
  convertProcessor,
  dotExpanderProcessor,
  dropProcessor,
  failProcessor,
  gsubProcessor,
  joinProcessor,
  jsonProcessor,
  lowercaseProcessor,
  removeProcessor,
  renameProcessor,
  setProcessor,
  splitProcessor,
  trimProcessor,
  uppercaseProcessor,
  urldecodeProcessor,
} from './basic.processors.js';
import { dateIndexNameProcessor, dateProcessor } from './date.processors.js';
import { csvProcessor, dissectProcessor, fingerprintProcessor, grokProcessor, kvProcessor, uriPartsProcessor } from './parse.processors.js';
import { foreachProcessor, pipelineProcessor, rerouteProcessor, scriptProcessor } from './flow.processors.js';
import { communityIdProcessor, htmlStripProcessor, networkDirectionProcessor, sortProcessor } from './network.processors.js';
import { userAgentProcessor } from './user-agent.processor.js';

/** Every built-in processor factory (each bound to ExtensionPoints.IngestProcessor by the module). */
export const BUILTIN_PROCESSORS: readonly ProcessorFactory[] = [
  appendProcessor,
  bytesProcessor,
  communityIdProcessor,
  convertProcessor,
  csvProcessor,
  dateProcessor,
  dateIndexNameProcessor,
  dissectProcessor,
  dotExpanderProcessor,
  dropProcessor,
  failProcessor,
  fingerprintProcessor,
  foreachProcessor,
  grokProcessor,
  gsubProcessor,
  htmlStripProcessor,
  joinProcessor,
  jsonProcessor,
  kvProcessor,
  lowercaseProcessor,
  networkDirectionProcessor,
  pipelineProcessor,
  removeProcessor,
  renameProcessor,
  rerouteProcessor,
  scriptProcessor,
  setProcessor,
  sortProcessor,
  splitProcessor,
  trimProcessor,
  uppercaseProcessor,
  uriPartsProcessor,
  urldecodeProcessor,
  userAgentProcessor,
];
