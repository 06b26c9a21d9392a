/**
 * An API family, in a file of its own: the wire-format seam (wire.ts), the upstream spec and a
 * remote model's state all name it, and the seam imports the neutral model that names upstreams,
 * so a name kept in wire.ts closed an import circle through them.
 * @module
 */

/**
 * An API family: which official SDK a caller is (its errors come in that family's shape), and
 * which API a remote server speaks. The one definition of the name.
 */
export type Flavour = 'openai' | 'anthropic';
