import { describe, expect, it } from 'vitest';
import { ConfigError, HookTimeoutError, HookwiseError, PluginError, UnsafeNameError } from './errors.js';

describe('errors', () => {
  it('recognises hookwise errors by marker, also from another copy of core', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('hookwise.error')]: true });
    expect(HookwiseError.isInstance(foreign)).toBe(true);
    expect(HookwiseError.isInstance(new Error('x'))).toBe(false);
    expect(HookwiseError.isInstance(null)).toBe(false);
  });

  it('names file, plugin and hook in messages', () => {
    expect(new ConfigError('bad', { file: '/p/hookwise.config.json' }).message).toBe('/p/hookwise.config.json: bad');
    expect(new PluginError('bad options', { pluginName: 'prune' }).message).toBe('[prune] bad options');
    const timeout = new HookTimeoutError({ pluginName: 'p', hookName: 'h', timeoutMs: 10 });
    expect(timeout.message).toBe('[p › h] hook did not settle within 10 ms');
    expect(timeout.code).toBe('HW_HOOK_TIMEOUT');
    expect(HookwiseError.isInstance(timeout)).toBe(true);
    expect(new UnsafeNameError('session id', '../x', 'contains ..').message).toBe('refused session id "../x": contains ..');
  });
});
