// A small consumer of the types openapi-typescript writes from /api/schema/ (api.d.ts,
// generated beside this file by tests/core/api/test_schema_tools.py). It must compile
// under tsc --strict: ids are numbers, "not chosen" is null, errors are typed.
import type { components, paths } from "./api";

type LoopPage = paths["/loops/"]["get"]["responses"][200]["content"]["application/json"];
type LoopCreate = paths["/loops/"]["post"]["requestBody"]["content"]["application/json"];
type Created = paths["/loops/"]["post"]["responses"][201]["content"]["application/json"];
type Problem = components["schemas"]["Problem"];
type ValidationProblem = components["schemas"]["ValidationProblem"];
type Scorecard = components["schemas"]["Scorecard"];
type Debrief = components["schemas"]["Debrief"];

const BASE = "https://kit.example.com/api/v1";

async function call<T>(token: string, path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${BASE}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
  });
  if (!response.ok) {
    const problem = (await response.json()) as ValidationProblem;
    const fields = Object.entries(problem.errors ?? {}).map(
      ([field, errors]) => `${field}: ${errors.map((error) => error.code).join(", ")}`,
    );
    throw new Error(`${problem.status} ${problem.code}: ${problem.detail} ${fields.join("; ")}`);
  }
  return (await response.json()) as T;
}

export async function undecidedLoops(token: string): Promise<number[]> {
  const page = await call<LoopPage>(token, "/loops/?page_size=50");
  return page.results.filter((loop) => loop.decision === null).map((loop) => loop.id);
}

export async function buildLoop(token: string, candidate: number, role: number, level: number) {
  const body: LoopCreate = { candidate, role, level };
  const loop = await call<Created>(token, "/loops/", {
    method: "POST",
    body: JSON.stringify(body),
  });
  const first = loop.interviews[0];
  return first === undefined ? null : { loop: loop.id, interview: first.id };
}

export function describe(problem: Problem): string {
  return `${problem.title} (${problem.code}, HTTP ${problem.status})`;
}

export function recommendation(card: Scorecard): string {
  return card.recommendation ?? "not chosen yet";
}

export function againstPanel(debrief: Debrief): string {
  const panel = debrief.panel;
  if (panel === null) return "blind: no panel yet";
  const said = `${panel.strong_no + panel.no} no of ${panel.counted}`;
  return debrief.hire_against_panel === true ? `hired against the panel (${said})` : said;
}
