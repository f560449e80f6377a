#!/usr/bin/env node
import { wildcardMatch } from '@edict/engine';
console.log(wildcardMatch('a*', 'abc'));
