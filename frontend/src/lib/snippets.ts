/** The base URL developers call: the origin the console is served from. */
export function apiBase(origin: string = window.location.origin): string {
  return `${origin}/api/v1`;
}

export const KEY_PLACEHOLDER = '$SWITCHBOARD_API_KEY';

export function curlModels(origin?: string, key: string = KEY_PLACEHOLDER): string {
  return `curl ${apiBase(origin)}/models \\\n  -H "Authorization: Bearer ${key}"`;
}

export function nodeModels(origin?: string): string {
  return `import OpenAI from "openai";

const client = new OpenAI({
  apiKey: process.env.SWITCHBOARD_API_KEY,
  baseURL: "${apiBase(origin)}",
});

const models = await client.models.list();
console.log(models.data);`;
}

export function pythonModels(origin?: string): string {
  return `import os
from openai import OpenAI

client = OpenAI(
    api_key=os.environ["SWITCHBOARD_API_KEY"],
    base_url="${apiBase(origin)}",
)

print(client.models.list().data)`;
}
