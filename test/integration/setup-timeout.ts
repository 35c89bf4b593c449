import { jest } from '@jest/globals';

// Integration tests wait on a real control plane (garbage collection alone takes ~30 s).
jest.setTimeout(120_000);
