import 'reflect-metadata';
import { main } from './strata.js';

main();
