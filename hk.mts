import { createHook, executionAsyncResource, AsyncLocalStorage } from 'node:async_hooks';
import { createRuntime, defineTool } from './src/index.ts';
import { z } from 'zod';
const rt = await createRuntime({ tools: [defineTool({ name: 'u.get', description: 'x', input: z.object({ id: z.number() }), output: z.object({ id: z.number() }), isConcurrencySafe: true, execute: ({ id }: { id: number }) => ({ id }) })], scopes: { default: { mode: 'code' } }, typecheck: 'off' } as never);
const code = 'const a = await tools.u.get({ id: 1 }); const b = await Promise.all([2,3,4].map((id) => tools.u.get({ id }))); return a.id + b.length;';
const once = async () => { const r = await rt.execute({ name: 'run_code', args: { code, description: 'x' } }); if (!r.ok) throw new Error(r.error.message); };
for (let i = 0; i < 100; i++) await once();
const als = new AsyncLocalStorage<{ ms: number; t: number }>();
let depth = 0;
const hook = createHook({ before() { const s = als.getStore(); if (s && depth++ === 0) s.t = performance.now(); }, after() { const s = als.getStore(); if (s && --depth === 0) s.ms += performance.now() - s.t; } });
const batch = async (n: number) => { const t = process.cpuUsage(); for (let i = 0; i < n; i++) await als.run({ ms: 0, t: 0 }, once); const u = process.cpuUsage(t); return (u.user + u.system) / 1000 / n; };
const off: number[] = [], on: number[] = [];
for (let r = 0; r < 8; r++) { hook.disable(); off.push(await batch(100)); hook.enable(); on.push(await batch(100)); }
hook.disable();
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log('host CPU ms/run: off', med(off).toFixed(3), 'on', med(on).toFixed(3), 'ratio', (med(on) / med(off)).toFixed(3));
await rt.close();
