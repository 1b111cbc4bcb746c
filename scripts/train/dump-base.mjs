#!/usr/bin/env node
// Writes the base model's trainable tensors to .cache/train/base/ (what train.py starts from).
import { join } from 'node:path';
import { baseWeights, repoRoot, writeTensors } from './weights-io.mjs';

const out = process.argv[2] ?? join(repoRoot, '.cache', 'train', 'base');
const sha = writeTensors(baseWeights(), out);
console.log(`base tensors -> ${out} (sha256 ${sha})`);
