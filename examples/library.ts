// The README's library example: one tool set, a code-mode scope, one run_code call.
import { z } from 'zod';
import { createRuntime, defineTool } from 'isocode';

const getWeather = defineTool({
  name: 'weather.get',
  description: 'Current temperature of a city, in °C.',
  input: z.object({ city: z.string() }),
  output: z.object({ city: z.string(), celsius: z.number() }),
  isConcurrencySafe: true,
  execute: ({ city }: { city: string }) => ({ city, celsius: city.length * 3 }),
});

const runtime = await createRuntime({ tools: [getWeather], scopes: { default: { mode: 'code' } } });
console.log(runtime.wireSchemas().map((t) => t.name)); // [ 'run_code' ]: the model sees one tool

const result = await runtime.execute({
  name: 'run_code',
  args: {
    description: 'warmest city',
    code: `
      const cities = ['Oslo', 'Lisbon', 'Nairobi'];
      const temps = await Promise.all(cities.map((city) => tools.weather.get({ city })));
      temps.sort((a, b) => b.celsius - a.celsius);
      console.log('checked', temps.length, 'cities');
      return temps[0].city;`,
  },
});
console.log(result.ok ? result.content[0] : result.error); // checked 3 cities … "Nairobi"
await runtime.close();
