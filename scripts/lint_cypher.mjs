// Lint every Cypher statement engram-kit can send to Neo4j with Neo4j's own parser and semantic checks
// (@neo4j-cypher/language-support, lintCypherQuery), against a schema that declares our labels,
// relationship types, property keys, query parameters, the built-in functions we call and the Graph Data
// Science routines we use. Anything else (a misspelt label, property, parameter, function or procedure,
// a syntax error, a deprecated construct) is reported.
//
// Input: the JSON of `python -m engram_kit.store.statements --dump neo4j`, from a file argument or stdin.
// Output: one JSON object {statements, errors, warnings, problems: [{name, severity, message, text}]}.
// Exit status: 0 when there is no error and no warning, 1 otherwise, 2 on bad input.
import { readFileSync } from 'node:fs';
import { lintCypherQuery } from '@neo4j-cypher/language-support';

const VERSIONS = ['CYPHER 5', 'CYPHER 25'];

function argument(name, type, withDefault) {
  const text = withDefault ? `${name} = null :: ${type}` : `${name} :: ${type}`;
  const out = { name, type, description: text, isDeprecated: false };
  if (withDefault) out.default = `DefaultParameterValue{value=null, type=${type}}`;
  return out;
}

function routineEntries(routines) {
  const procedures = {};
  const functions = {};
  for (const r of routines) {
    const args = r.args.map(([n, t], i) => argument(n, t, i > 0));
    const argText = args.map((a) => a.description).join(', ');
    if (r.kind === 'procedure') {
      const returns = r.returns.map(([n, t]) => ({ name: n, type: t, description: `${n} :: ${t}`, isDeprecated: false }));
      procedures[r.name] = {
        name: r.name, description: r.name, mode: 'READ', worksOnSystem: false, admin: false,
        signature: `${r.name}(${argText}) :: (${returns.map((x) => x.description).join(', ')})`,
        argumentDescription: args, returnDescription: returns, option: { deprecated: false }, isDeprecated: false,
      };
    } else {
      functions[r.name] = {
        name: r.name, category: 'gds', description: r.name, isBuiltIn: false, aggregating: Boolean(r.aggregating),
        signature: `${r.name}(${argText}) :: ${r.returns}`, argumentDescription: args, returnDescription: r.returns,
        isDeprecated: false,
      };
    }
  }
  return { procedures, functions };
}

function builtinEntries(names) {
  const functions = {};
  for (const name of names) {
    functions[name] = {
      name, category: 'builtin', description: name, isBuiltIn: true, aggregating: name === 'count' || name === 'collect',
      signature: `${name}(input :: ANY) :: ANY`, argumentDescription: [argument('input', 'ANY', false)],
      returnDescription: 'ANY', isDeprecated: false,
    };
  }
  return functions;
}

export function dbSchema(schema) {
  const { procedures, functions } = routineEntries(schema.routines);
  Object.assign(functions, builtinEntries(schema.functions));
  const scoped = (registry) => Object.fromEntries(VERSIONS.map((v) => [v, registry]));
  return {
    labels: schema.labels, relationshipTypes: schema.relationshipTypes, propertyKeys: schema.propertyKeys,
    parameters: schema.parameters, procedures: scoped(procedures), functions: scoped(functions),
  };
}

function main() {
  const source = process.argv[2] ? readFileSync(process.argv[2], 'utf8') : readFileSync(0, 'utf8');
  let payload;
  try {
    payload = JSON.parse(source);
  } catch (err) {
    process.stderr.write(`lint_cypher: input is not JSON (${err.message}); pipe in "python -m engram_kit.store.statements --dump neo4j"\n`);
    process.exit(2);
  }
  const schema = dbSchema(payload.schema);
  const problems = [];
  for (const { name, text } of payload.statements) {
    const { diagnostics } = lintCypherQuery(text, schema);
    for (const d of diagnostics) {
      // LSP severities: 1 error, 2 warning, 3 information, 4 hint.
      problems.push({ name, severity: d.severity === 1 ? 'error' : d.severity === 2 ? 'warning' : 'info', message: d.message, text });
    }
  }
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warning').length;
  process.stdout.write(JSON.stringify({ statements: payload.statements.length, errors, warnings, problems }, null, 1) + '\n');
  process.exit(errors || warnings ? 1 : 0);
}

main();
