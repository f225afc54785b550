import { attackSuite } from './attack-suite.js';

attackSuite('npm');
