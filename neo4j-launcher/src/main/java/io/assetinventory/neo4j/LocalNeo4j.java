package io.assetinventory.neo4j;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.io.ByteUnit;

import sun.misc.Signal;

/**
 * Runs an embedded Neo4j Community DBMS with only a Bolt connector on 127.0.0.1, for a parent
 * process (the Node service) that needs a local database when no NEO4J_URI is configured.
 *
 * <p>Protocol with the parent: exactly one line {@code NEO4J_READY bolt://127.0.0.1:<port>} on
 * stdout once the database accepts queries; on a start failure one line on stderr and a non-zero
 * exit. The process stops cleanly on SIGTERM/SIGINT and when its stdin reaches EOF.
 *
 * <p>Authentication is on: at every start the {@code neo4j} user's password is set to the content
 * of the password file (which the parent generates once per installation), so a store made by an
 * older launcher, with auth off and the default password, is locked on its first start here.
 */
public final class LocalNeo4j {

    private static final String USAGE = "usage: LocalNeo4j --home <dir> --bolt-port <port> --password-file <file>"
            + " [--pagecache <size, e.g. 256m>] [--tx-memory <size>] [--ignore-stdin]";

    private static volatile DatabaseManagementService dbms;

    public static void main(String[] args) {
        // Neo4j's logging goes to files under <home>/logs, so stdout stays reserved for the
        // READY line; keep a handle on it and send anything a library prints there to stderr.
        PrintStream protocolOut = System.out;
        System.setOut(System.err);

        Options opts;
        try {
            opts = Options.parse(args);
        } catch (IllegalArgumentException e) {
            fail(e.getMessage() + "; " + USAGE);
            return;
        }

        // The JVM exits with 128+signal by default; turning the signals into System.exit(0)
        // still runs the shutdown hook and lets the parent see a clean stop as exit code 0.
        Signal.handle(new Signal("TERM"), s -> System.exit(0));
        Signal.handle(new Signal("INT"), s -> System.exit(0));
        // Shutdown releases the store lock and checkpoints, so the next start needs no recovery.
        Runtime.getRuntime().addShutdownHook(new Thread(LocalNeo4j::shutdown, "neo4j-shutdown"));

        if (!opts.ignoreStdin) {
            // If the parent dies (even by SIGKILL) our stdin pipe closes: stop instead of
            // lingering as an orphan that holds the store lock and the port.
            Thread watcher = new Thread(LocalNeo4j::exitOnStdinEof, "stdin-eof-watcher");
            watcher.setDaemon(true);
            watcher.start();
        }

        try {
            dbms = newBuilder(opts).build();
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            if (!db.isAvailable(TimeUnit.MINUTES.toMillis(5))) {
                fail("database '" + db.databaseName() + "' did not become available");
            }
            setNeo4jPassword(Files.readString(opts.passwordFile).strip());
        } catch (Throwable t) {
            fail(describe(t));
        }

        protocolOut.println("NEO4J_READY bolt://127.0.0.1:" + opts.boltPort);
        protocolOut.flush();
        // main returns; Neo4j's non-daemon threads keep the JVM alive until exit is requested.
    }

    private static DatabaseManagementServiceBuilder newBuilder(Options opts) {
        Map<org.neo4j.graphdb.config.Setting<?>, Object> cfg = new HashMap<>();
        cfg.put(BoltConnector.enabled, true);
        cfg.put(BoltConnector.listen_address, new SocketAddress("127.0.0.1", opts.boltPort));
        cfg.put(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", opts.boltPort));
        // Anything else that might listen (e.g. the routing connector) binds loopback only.
        cfg.put(GraphDatabaseSettings.default_listen_address, new SocketAddress("127.0.0.1"));
        cfg.put(GraphDatabaseSettings.routing_enabled, false);
        // Auth is on even on loopback: any local process could otherwise read and write the graph.
        cfg.put(GraphDatabaseSettings.auth_enabled, true);
        // Community ships the usage-data collector (neo4j-udc), which phones home when enabled.
        cfg.put(GraphDatabaseSettings.udc_enabled, false);
        // The default page cache is sized from total RAM; a local dev database must stay small.
        cfg.put(GraphDatabaseSettings.pagecache_memory, opts.pagecache);
        // Bolt's event loops otherwise idle 5 s twice during shutdown (after the stores are
        // already checkpointed), making every stop take ~10 s. Internal setting, pinned version.
        cfg.put(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0);
        if (opts.txMemory != null) {
            cfg.put(GraphDatabaseSettings.memory_transaction_global_max_size, opts.txMemory);
        }
        return new DatabaseManagementServiceBuilder(opts.home).setConfig(cfg);
    }

    /**
     * Makes the neo4j user's password the given one. The embedded API runs with full rights, so this
     * works whatever the current password is (the default "neo4j" of a new or older store included).
     */
    private static void setNeo4jPassword(String password) {
        if (password.length() < 8) {
            fail("the password file holds fewer than 8 characters");
        }
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        try {
            system.executeTransactionally("ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
        } catch (QueryExecutionException e) {
            // Neo4j refuses to set the password it already has: then there is nothing to do.
            if (!String.valueOf(e.getMessage()).contains("cannot be the same")) {
                throw e;
            }
        }
    }

    private static void shutdown() {
        DatabaseManagementService service = dbms;
        if (service != null) {
            dbms = null;
            service.shutdown();
        }
    }

    private static void exitOnStdinEof() {
        byte[] buf = new byte[256];
        try {
            while (System.in.read(buf) != -1) {
                // input is ignored; only EOF matters
            }
        } catch (IOException ignored) {
            // an unreadable stdin means the parent is gone, same as EOF
        }
        System.exit(0);
    }

    /** Error text in one line: the outermost message plus the root cause, which is the useful part. */
    private static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String outer = String.valueOf(t.getMessage());
        String inner = root == t ? "" : ": " + root.getClass().getSimpleName() + ": " + root.getMessage();
        return (outer + inner).replaceAll("\\s*\\R\\s*", " ");
    }

    private static void fail(String reason) {
        System.err.println("NEO4J_FAILED " + reason);
        System.err.flush();
        System.exit(1);
    }

    private record Options(Path home, int boltPort, Path passwordFile, long pagecache, Long txMemory, boolean ignoreStdin) {
        static Options parse(String[] args) {
            Path home = null;
            Path passwordFile = null;
            Integer port = null;
            long pagecache = ByteUnit.mebiBytes(256);
            Long txMemory = null;
            boolean ignoreStdin = false;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--ignore-stdin")) {
                    ignoreStdin = true;
                    continue;
                }
                if (!List.of("--home", "--bolt-port", "--password-file", "--pagecache", "--tx-memory").contains(arg)) {
                    throw new IllegalArgumentException("unknown argument " + arg);
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + arg);
                }
                String value = args[++i];
                switch (arg) {
                    case "--home" -> home = Path.of(value).toAbsolutePath();
                    case "--bolt-port" -> port = parsePort(value);
                    case "--password-file" -> passwordFile = Path.of(value).toAbsolutePath();
                    case "--pagecache" -> pagecache = parseSize(arg, value);
                    default -> txMemory = parseSize(arg, value);
                }
            }
            if (home == null || port == null || passwordFile == null) {
                throw new IllegalArgumentException("--home, --bolt-port and --password-file are required");
            }
            return new Options(home, port, passwordFile, pagecache, txMemory, ignoreStdin);
        }

        private static int parsePort(String value) {
            try {
                int port = Integer.parseInt(value);
                if (port >= 1 && port <= 65535) {
                    return port;
                }
            } catch (NumberFormatException ignored) {
                // reported below
            }
            throw new IllegalArgumentException("invalid --bolt-port " + value);
        }

        private static long parseSize(String arg, String value) {
            try {
                return ByteUnit.parse(value);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("invalid " + arg + " " + value);
            }
        }
    }
}
