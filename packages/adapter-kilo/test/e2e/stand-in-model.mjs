// The loopback chat-completions stand-in every host's e2e suite shares.
export * from '../../../../test-support/stand-in-chat-model.mjs';
