import { hostPackageConfig } from '../../vitest.shared.js';

export default hostPackageConfig('adapter-cline');
