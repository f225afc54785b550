import { defineConfig } from 'tsup';
import { commandHookAdapterBuild } from '../../tsup.shared.js';

export default defineConfig(commandHookAdapterBuild);
