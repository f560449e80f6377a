/** Ephemeral namespace names in chainsaw's style: `chainsaw-<adjective>-<noun>`. */
import { randomInt } from 'node:crypto';

const ADJECTIVES = [
  'able', 'bold', 'brave', 'bright', 'calm', 'clever', 'cool', 'crisp', 'eager', 'fair',
  'fancy', 'fast', 'fine', 'firm', 'fond', 'free', 'fresh', 'glad', 'good', 'grand',
  'happy', 'hardy', 'jolly', 'keen', 'kind', 'lucky', 'merry', 'mighty', 'neat', 'nice',
  'noble', 'polite', 'proud', 'quick', 'quiet', 'rapid', 'ready', 'sharp', 'smart', 'steady',
  'sunny', 'super', 'sure', 'swift', 'tidy', 'tough', 'vivid', 'warm', 'wise', 'witty',
];
const NOUNS = [
  'ant', 'bat', 'bear', 'bee', 'bison', 'cat', 'crab', 'crow', 'deer', 'dog',
  'dove', 'duck', 'eagle', 'eel', 'elk', 'ferret', 'finch', 'fox', 'frog', 'goat',
  'goose', 'hare', 'hawk', 'heron', 'ibex', 'koala', 'lark', 'lemur', 'lion', 'llama',
  'lynx', 'mole', 'moose', 'mouse', 'newt', 'otter', 'owl', 'panda', 'quail', 'raven',
  'robin', 'seal', 'shark', 'sloth', 'snake', 'swan', 'tiger', 'toad', 'wolf', 'yak',
];

export function randomNamespaceName(): string {
  return `chainsaw-${ADJECTIVES[randomInt(ADJECTIVES.length)]}-${NOUNS[randomInt(NOUNS.length)]}`;
}
