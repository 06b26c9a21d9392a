/**
 * The Node entry runs transformers.js on onnxruntime-node, which a browser app has no use for: the
 * package leaves them to the app (an optional peer dependency), and says what to install when they
 * are missing. See docs/decisions/small-browser-install.md.
 * @module
 */

/** What `inpage-llm/node` (and `npx inpage-llm serve`) needs installed beside the package. */
export const NODE_PEER = '@huggingface/transformers';
/** The version the package is built and tested with (its peer range). */
export const NODE_PEER_VERSION = '4.3.1';
/** Packages transformers.js brings that the Node entry loads: named when one of them is missing. */
const NODE_PACKAGES = [NODE_PEER, 'onnxruntime-node', 'onnxruntime-common', 'sharp'];

/**
 * The error to throw when loading the Node entry failed: a missing peer becomes a message naming
 * the install command (the original error as its `cause`); anything else is returned unchanged.
 */
export function explainMissingPeer(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return error;
  const missing = NODE_PACKAGES.find((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`));
  if (missing === undefined) return error;
  const what = missing === NODE_PEER ? NODE_PEER : `${missing} (a dependency of ${NODE_PEER})`;
  return new Error(
    `inpage-llm/node runs models with transformers.js on onnxruntime-node, which browser apps do not need, so the package does not install it: ` +
      `${what} is missing. Install it beside inpage-llm: npm install ${NODE_PEER}@${NODE_PEER_VERSION}`,
    { cause: error },
  );
}
