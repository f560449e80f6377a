export { parseTrustedRoot, trustedRootOf } from './trusted-root';
