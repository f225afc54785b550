export * from '../../../../test-support/stand-in-chat-model.mjs';
