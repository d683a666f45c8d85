// A tools module for isocode: an array of plain tool objects (no import needed).
// Load it from a config:  { "sources": [{ "builtin": "demo" }, { "module": "./tools.mjs" }] }
// Each tool: name, description, input (JSON Schema or zod), optional output, execute(args, ctx).

/** Made-up weather, so the example works offline and answers the same every time. */
const CITIES = {
  paris: { city: 'Paris', country: 'FR', temperatureC: 18, conditions: 'light rain', humidity: 81 },
  tokyo: { city: 'Tokyo', country: 'JP', temperatureC: 24, conditions: 'sunny', humidity: 60 },
  lima: { city: 'Lima', country: 'PE', temperatureC: 16, conditions: 'overcast', humidity: 77 },
  nairobi: {
    city: 'Nairobi',
    country: 'KE',
    temperatureC: 21,
    conditions: 'partly cloudy',
    humidity: 58,
  },
};

const weatherReport = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    country: { type: 'string', description: 'ISO 3166-1 alpha-2 code.' },
    temperature: { type: 'number' },
    unit: { type: 'string', enum: ['C', 'F'] },
    conditions: { type: 'string' },
    humidity: { type: 'integer', description: 'Relative humidity, percent.' },
  },
  required: ['city', 'country', 'temperature', 'unit', 'conditions', 'humidity'],
  additionalProperties: false,
};

const toUnit = (celsius, unit) => (unit === 'F' ? Math.round((celsius * 9) / 5 + 32) : celsius);

export default [
  {
    name: 'weather.lookup',
    description:
      'Current weather for a city (demo data: Paris, Tokyo, Lima or Nairobi). Throws for an unknown city.',
    input: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name, case-insensitive.' },
        unit: { type: 'string', enum: ['C', 'F'], default: 'C', description: 'Temperature unit.' },
      },
      required: ['city'],
      additionalProperties: false,
    },
    output: weatherReport,
    isConcurrencySafe: true,
    execute: ({ city, unit = 'C' }) => {
      const entry = Object.hasOwn(CITIES, city.toLowerCase())
        ? CITIES[city.toLowerCase()]
        : undefined;
      if (!entry)
        throw new Error(
          `no weather for "${city}"; known cities: ${Object.values(CITIES)
            .map((c) => c.city)
            .join(', ')}`,
        );
      return {
        city: entry.city,
        country: entry.country,
        temperature: toUnit(entry.temperatureC, unit),
        unit,
        conditions: entry.conditions,
        humidity: entry.humidity,
      };
    },
  },
  {
    name: 'weather.cities',
    description: 'Lists the cities weather.lookup knows.',
    input: { type: 'object', properties: {}, additionalProperties: false },
    output: {
      type: 'object',
      properties: { cities: { type: 'array', items: { type: 'string' } } },
      required: ['cities'],
      additionalProperties: false,
    },
    isConcurrencySafe: true,
    execute: () => ({ cities: Object.values(CITIES).map((c) => c.city) }),
  },
  {
    name: 'units.convert_temperature',
    description: 'Converts a temperature between Celsius (C), Fahrenheit (F) and Kelvin (K).',
    input: {
      type: 'object',
      properties: {
        value: { type: 'number' },
        from: { type: 'string', enum: ['C', 'F', 'K'] },
        to: { type: 'string', enum: ['C', 'F', 'K'] },
      },
      required: ['value', 'from', 'to'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: { value: { type: 'number' }, unit: { type: 'string', enum: ['C', 'F', 'K'] } },
      required: ['value', 'unit'],
      additionalProperties: false,
    },
    isConcurrencySafe: true,
    execute: ({ value, from, to }) => {
      const celsius = from === 'C' ? value : from === 'F' ? ((value - 32) * 5) / 9 : value - 273.15;
      const out = to === 'C' ? celsius : to === 'F' ? (celsius * 9) / 5 + 32 : celsius + 273.15;
      return { value: Math.round(out * 100) / 100, unit: to };
    },
  },
];
