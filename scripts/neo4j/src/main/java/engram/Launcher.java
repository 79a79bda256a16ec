package engram;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilder;
import org.neo4j.harness.Neo4jBuilders;
import org.neo4j.io.ByteUnit;

/**
 * Starts one in-process Neo4j 5.26 DBMS (neo4j-harness) with a Bolt connector on 127.0.0.1 and the OpenGDS
 * procedures loaded from a plugin directory, then blocks until the JVM is told to stop (SIGTERM/SIGINT), when a
 * shutdown hook closes the DBMS. Used by scripts/neo4j.sh only.
 *
 * <p>Arguments: {@code workDir boltPort pluginDir readyFile}. The password of user {@code neo4j} is read from the
 * environment variable {@code NEO4J_PASSWORD} (at least 8 characters, Neo4j's minimum) so it never appears in a
 * process listing. When the DBMS answers, {@code readyFile} is written atomically with the Bolt URI, the startup
 * time in seconds and the GDS version; scripts/neo4j.sh waits for that file.
 *
 * <p>Optional environment: {@code NEO4J_IMPORT_DIR}, the folder {@code LOAD CSV} reads {@code file:///} URLs
 * from ({@code server.directories.import}; written to the ready file so clients know where to put files);
 * {@code NEO4J_COPY_FROM}, a Neo4j home whose {@code data/} folder (e.g. one {@code neo4j-admin database import}
 * wrote) is copied into the new DBMS before it starts, so the server opens that store.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: Launcher WORK_DIR BOLT_PORT PLUGIN_DIR READY_FILE");
            System.exit(2);
        }
        Path workDir = Path.of(args[0]);
        int port = Integer.parseInt(args[1]);
        Path pluginDir = Path.of(args[2]);
        Path readyFile = Path.of(args[3]);
        String password = System.getenv("NEO4J_PASSWORD");
        if (password == null || password.length() < 8) {
            System.err.println("NEO4J_PASSWORD must be set to at least 8 characters (Neo4j's minimum password length)");
            System.exit(2);
        }
        long pageCacheMb = Long.parseLong(System.getenv().getOrDefault("NEO4J_PAGECACHE_MB", "256"));
        long t0 = System.nanoTime();
        String importDir = System.getenv("NEO4J_IMPORT_DIR");
        String copyFrom = System.getenv("NEO4J_COPY_FROM");
        Neo4jBuilder builder = Neo4jBuilders.newInProcessBuilder(workDir);
        if (copyFrom != null && !copyFrom.isEmpty()) {
            builder = builder.copyFrom(Path.of(copyFrom));
        }
        if (importDir != null && !importDir.isEmpty()) {
            builder = builder.withConfig(GraphDatabaseSettings.load_csv_file_url_root, Path.of(importDir).toAbsolutePath())
                    // A backslash is text, as in neo4j-admin import (pandas doubles quotes; it never escapes them)
                    .withConfig(GraphDatabaseSettings.csv_legacy_quote_escaping, false);
        }
        Neo4j neo4j = builder
                .withDisabledServer() // no HTTP connector: the Python driver speaks Bolt only
                .withConfig(BoltConnector.enabled, true)
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .withConfig(GraphDatabaseSettings.auth_enabled, true)
                .withConfig(GraphDatabaseSettings.plugin_dir, pluginDir.toAbsolutePath())
                .withConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("gds.*"))
                .withConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            neo4j.close();
            stopped.countDown();
        }, "engram-neo4j-shutdown"));
        // The harness creates user neo4j with the default password; set ours (no change required on first login).
        neo4j.databaseManagementService().database("system").executeTransactionally(
                "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
        String gdsVersion = neo4j.defaultDatabaseService().executeTransactionally(
                "RETURN gds.version() AS version", Map.of(), result -> String.valueOf(result.next().get("version")));
        double seconds = (System.nanoTime() - t0) / 1e9;
        writeAtomically(readyFile, String.format(
                "NEO4J_URI=bolt://127.0.0.1:%d%nNEO4J_STARTUP_S=%.2f%nNEO4J_GDS_VERSION=%s%nNEO4J_IMPORT_DIR=%s%n", port,
                seconds, gdsVersion, importDir == null ? "" : importDir));
        System.out.printf("engram neo4j: bolt://127.0.0.1:%d up in %.2f s, GDS %s%n", port, seconds, gdsVersion);
        System.out.flush();
        stopped.await();
    }

    private static void writeAtomically(Path target, String text) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
