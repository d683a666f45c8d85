// The library example in a CommonJS app: require('isocode'), no top-level await.
const { z } = require('zod');
const { createRuntime, defineTool } = require('isocode');

const getWeather = defineTool({
  name: 'weather.get',
  description: 'Current temperature of a city, in °C.',
  input: z.object({ city: z.string() }),
  output: z.object({ city: z.string(), celsius: z.number() }),
  isConcurrencySafe: true,
  execute: ({ city }) => ({ city, celsius: city.length * 3 }),
});

async function main() {
  const runtime = await createRuntime({
    tools: [getWeather],
    scopes: { default: { mode: 'code' } },
  });
  try {
    const result = await runtime.execute({
      name: 'run_code',
      args: {
        description: 'warmest city',
        code: `
          const temps = await Promise.all(['Oslo', 'Lisbon', 'Nairobi'].map((city) => tools.weather.get({ city })));
          temps.sort((a, b) => b.celsius - a.celsius);
          return temps[0].city;`,
      },
    });
    console.log(result.ok ? result.content[0] : result.error); // … "Nairobi"
  } finally {
    await runtime.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
