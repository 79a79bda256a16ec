#!/usr/bin/env bash
# A disposable Neo4j 5.26 + OpenGDS 2.13 server for the live tests and benchmarks:
#   scripts/neo4j.sh start | stop | status | env
# start  resolves the pinned artifacts of scripts/neo4j/pom.xml from Maven Central (cached in ~/.m2 after the
#        first run), starts one in-process DBMS (neo4j-harness) with Bolt on a free 127.0.0.1 port, user neo4j with
#        the password from $NEO4J_PASSWORD (a random one is made when unset), GDS procedures registered from a
#        plugin directory with gds.* unrestricted; waits until `RETURN gds.version()` answers, then prints
#        NEO4J_URI=... and writes $STATE/neo4j.env (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_STARTUP_S,
#        NEO4J_GDS_VERSION; mode 600), which tests/test_neo4j_live.py and benchmarks/neo4j_parity.py read.
#        Idempotent: a running server is reused (its URI printed again).
# stop   SIGTERM (the JVM's shutdown hook closes the DBMS), SIGKILL after $NEO4J_STOP_TIMEOUT s, then removes the
#        database directory and the state files. Idempotent.
# status prints the URI and exits 0 when running, exits 3 when not.
# env    prints the state file (for `eval "$(scripts/neo4j.sh env)"`).
# admin ARGS...  runs neo4j-admin (org.neo4j.cli.AdminTool from the same Maven artifacts; the harness ships no
#        neo4j-admin script) with NEO4J_HOME=$STATE/admin-home, e.g. `admin database import full --nodes=... neo4j`.
# import DIR     neo4j-admin's offline bulk import of the CSVs `engram export --neo4j-admin-csv DIR` wrote: stops
#        the server (keeping its password), runs DIR/import.sh's command into a fresh $STATE/admin-home, then starts
#        the server on a copy of that store. Prints IMPORT_S=<seconds of neo4j-admin> and the new NEO4J_URI.
# The running server reads LOAD CSV files (file:///name.csv) from $NEO4J_IMPORT_DIR (default $STATE/import;
# written to the state file).
# Settings (environment): NEO4J_STATE_DIR (default <repo>/.neo4j), NEO4J_HEAP (JVM -Xmx, default 1g),
# NEO4J_PAGECACHE_MB (default 256), NEO4J_JAVA_OPTS (default -XX:+UseSerialGC: fewest threads on a shared machine), NEO4J_START_TIMEOUT (s, default 900: a loaded 2-core machine took 140 s).
# Needs java (17+) and mvn on PATH; exits 4 with the reason when they are missing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROJECT="$ROOT/scripts/neo4j"
STATE="${NEO4J_STATE_DIR:-$ROOT/.neo4j}"
PID_FILE="$STATE/neo4j.pid"
ENV_FILE="$STATE/neo4j.env"
READY_FILE="$STATE/ready"
LOG_FILE="$STATE/neo4j.log"
HEAP="${NEO4J_HEAP:-1g}"
START_TIMEOUT="${NEO4J_START_TIMEOUT:-900}"
IMPORT_DIR="${NEO4J_IMPORT_DIR:-$STATE/import}"
ADMIN_HOME="$STATE/admin-home"
STOP_TIMEOUT="${NEO4J_STOP_TIMEOUT:-60}"

die() { echo "neo4j.sh: $*" >&2; exit "${2:-1}"; }

running_pid() {
  # The pid of our launcher when it is alive (checked by its command line, not only the pid, so a reused pid of
  # another process is never taken for ours).
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "engram.Launcher" || return 1
  echo "$pid"
}

need_tools() {
  command -v java >/dev/null 2>&1 || die "java not found: install a JDK 17+ (Debian: apt-get install openjdk-17-jdk-headless)" 4
  command -v mvn >/dev/null 2>&1 || die "mvn not found: install Maven (Debian: apt-get install maven)" 4
}

build() {
  # Compile the launcher and list its classpath; copy the OpenGDS jars into the plugin directory. Skipped when
  # nothing changed since the last build.
  local stamp="$PROJECT/target/.built"
  if [ -f "$stamp" ] && [ "$stamp" -nt "$PROJECT/pom.xml" ] \
     && [ "$stamp" -nt "$PROJECT/src/main/java/engram/Launcher.java" ]; then
    return 0
  fi
  echo "neo4j.sh: resolving Neo4j + OpenGDS from Maven Central and compiling the launcher..." >&2
  local t0=$SECONDS
  (cd "$PROJECT" \
    && mvn -q -B compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
    && rm -rf target/plugins \
    && mvn -q -B dependency:copy-dependencies -DincludeGroupIds=org.neo4j.gds -DoutputDirectory=target/plugins) \
    >&2 || die "Maven could not resolve or build scripts/neo4j (see the output above)"
  touch "$stamp"
  echo "neo4j.sh: built in $((SECONDS - t0)) s" >&2
}

free_port() {
  python3 - <<'EOF'
import socket
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
EOF
}

start() {
  need_tools
  if pid="$(running_pid)" && [ -f "$ENV_FILE" ]; then
    grep '^NEO4J_URI=' "$ENV_FILE"
    return 0
  fi
  stop_quietly
  build
  mkdir -p "$STATE"
  chmod 700 "$STATE"
  local password="${NEO4J_PASSWORD:-}"
  if [ -z "$password" ]; then
    password="engram-$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
  fi
  [ "${#password}" -ge 8 ] || die "NEO4J_PASSWORD must have at least 8 characters (Neo4j's minimum)"
  local port
  port="$(free_port)"
  rm -f "$READY_FILE" "$ENV_FILE"
  mkdir -p "$IMPORT_DIR"
  # setsid: the server gets its own process group, so stopping it never signals the caller (pytest, CI).
  # shellcheck disable=SC2086  # NEO4J_JAVA_OPTS is a list of options
  NEO4J_PASSWORD="$password" NEO4J_IMPORT_DIR="$IMPORT_DIR" NEO4J_COPY_FROM="${COPY_FROM:-}" setsid java "-Xmx$HEAP" ${NEO4J_JAVA_OPTS:--XX:+UseSerialGC} \
    -cp "$PROJECT/target/classes:$(cat "$PROJECT/target/classpath.txt")" \
    engram.Launcher "$STATE/work" "$port" "$PROJECT/target/plugins" "$READY_FILE" \
    > "$LOG_FILE" 2>&1 < /dev/null &
  echo $! > "$PID_FILE"
  local waited=0
  while [ ! -f "$READY_FILE" ]; do
    if ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
      tail -n 40 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      die "the Neo4j launcher exited before it was ready (log above, full log $LOG_FILE)"
    fi
    if [ "$waited" -ge "$START_TIMEOUT" ]; then
      tail -n 40 "$LOG_FILE" >&2 || true
      stop_quietly
      die "Neo4j was not ready after $START_TIMEOUT s (NEO4J_START_TIMEOUT)"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  umask 077
  {
    cat "$READY_FILE"
    echo "NEO4J_USER=neo4j"
    echo "NEO4J_PASSWORD=$password"
  } > "$ENV_FILE"
  grep -E '^NEO4J_(URI|STARTUP_S|GDS_VERSION)=' "$ENV_FILE"
}

stop_quietly() {
  local pid
  if pid="$(running_pid)"; then
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$STOP_TIMEOUT" ]; do
      sleep 1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "neo4j.sh: Neo4j did not stop within $STOP_TIMEOUT s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
    fi
  fi
  rm -rf "$STATE/work"
  [ -n "${COPY_FROM:-}" ] || rm -rf "$ADMIN_HOME"
  [ -n "${KEEP_IMPORT_DIR:-}" ] || rm -rf "$IMPORT_DIR"
  rm -f "$PID_FILE" "$READY_FILE" "$ENV_FILE" "$READY_FILE.tmp"
}

admin() {
  need_tools
  build
  mkdir -p "$ADMIN_HOME/conf" "$ADMIN_HOME/data" "$ADMIN_HOME/logs"
  touch "$ADMIN_HOME/conf/neo4j.conf"
  # shellcheck disable=SC2086  # NEO4J_JAVA_OPTS is a list of options
  NEO4J_HOME="$ADMIN_HOME" NEO4J_CONF="$ADMIN_HOME/conf" java "-Xmx$HEAP" ${NEO4J_JAVA_OPTS:--XX:+UseSerialGC} \
    -cp "$PROJECT/target/classes:$(cat "$PROJECT/target/classpath.txt")" org.neo4j.cli.AdminTool "$@"
}

import_csv() {
  local dir="${1:-}"
  [ -n "$dir" ] && [ -f "$dir/import.sh" ] || die "usage: scripts/neo4j.sh import DIR (a folder written by engram export --neo4j-admin-csv, with import.sh)" 2
  dir="$(cd "$dir" && pwd)"
  local command
  command="$(grep -E '^neo4j-admin ' "$dir/import.sh")" || die "$dir/import.sh has no neo4j-admin command line"
  if [ -z "${NEO4J_PASSWORD:-}" ] && [ -f "$ENV_FILE" ]; then
    NEO4J_PASSWORD="$(sed -n 's/^NEO4J_PASSWORD=//p' "$ENV_FILE")"
    export NEO4J_PASSWORD
  fi
  stop_quietly
  local t0
  t0="$(date +%s.%N)"
  # The generated command names its files relative to DIR; ours replaces the neo4j-admin script by AdminTool.
  # shellcheck disable=SC2086  # the command line is the export's own shell-quoted arguments
  (cd "$dir" && eval "admin ${command#neo4j-admin }") >&2 || die "neo4j-admin database import failed (output above)"
  echo "IMPORT_S=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$(date +%s.%N)")"
  COPY_FROM="$ADMIN_HOME" start
  rm -rf "$ADMIN_HOME"
}

case "${1:-}" in
  start) start ;;
  stop) stop_quietly; echo "neo4j.sh: stopped" ;;
  status)
    if running_pid >/dev/null && [ -f "$ENV_FILE" ]; then
      grep '^NEO4J_URI=' "$ENV_FILE"
    else
      echo "neo4j.sh: not running"
      exit 3
    fi ;;
  admin) shift; admin "$@" ;;
  import) shift; import_csv "$@" ;;
  env) [ -f "$ENV_FILE" ] || die "not running (no $ENV_FILE)" 3; sed 's/^/export /' "$ENV_FILE" ;;
  *) die "usage: scripts/neo4j.sh start|stop|status|env|admin ARGS...|import DIR" 2 ;;
esac
