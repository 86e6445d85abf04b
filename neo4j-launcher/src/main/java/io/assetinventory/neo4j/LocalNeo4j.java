package io.assetinventory.neo4j;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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

import inet.ipaddr.IPAddressString;

import sun.misc.Signal;

/**
 * Runs an embedded Neo4j Community DBMS with only a Bolt connector on 127.0.0.1, for a parent
 * process (the Node service) that needs a local database when no NEO4J_URI is configured.
 *
 * <p>Protocol with the parent: exactly one line {@code NEO4J_READY bolt://127.0.0.1:<port>} on
 * stdout once the database accepts queries; on a start failure one line on stderr and a non-zero
 * exit. The process stops cleanly on SIGTERM/SIGINT and when its stdin reaches EOF.
 *
 * <p>Authentication is on: at every start the {@code neo4j} user's password is set to the one the
 * parent gives (the first line of stdin with {@code --password-stdin}, or a file), so a store made
 * by an older launcher, with auth off and the default password, is locked on its first start here.
 *
 * <p>The engine itself refuses what no caller of this database needs, whatever a query check above
 * it lets through: LOAD CSV reads no file (file URLs off, an empty import folder) and no network
 * address (every address blocked), only the procedures of {@code --procedures} are loaded, and a
 * transaction's memory is bounded ({@code --tx-memory-max}, and all of them by {@code --tx-memory}).
 */
public final class LocalNeo4j {

    private static final String USAGE = "usage: LocalNeo4j --home <dir> --bolt-port <port> (--password-file <file> | --password-stdin)"
            + " [--pagecache <size, e.g. 256m>] [--tx-memory <size>] [--tx-memory-max <size>] [--procedures <a,b.*,...>] [--ignore-stdin]";

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

        // The password comes first on stdin (never on the command line, which every local user
        // sees, nor in a file this process's user would need to read).
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String password;
        try {
            password = opts.passwordFile == null ? stdin.readLine() : Files.readString(opts.passwordFile);
        } catch (IOException e) {
            fail("the password could not be read: " + e.getMessage());
            return;
        }
        if (password == null) {
            fail("stdin closed before the password line");
            return;
        }

        if (!opts.ignoreStdin) {
            // If the parent dies (even by SIGKILL) our stdin pipe closes: stop instead of
            // lingering as an orphan that holds the store lock and the port.
            Thread watcher = new Thread(() -> exitOnStdinEof(stdin), "stdin-eof-watcher");
            watcher.setDaemon(true);
            watcher.start();
        }

        try {
            dbms = newBuilder(opts).build();
            GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            if (!db.isAvailable(TimeUnit.MINUTES.toMillis(5))) {
                fail("database '" + db.databaseName() + "' did not become available");
            }
            setNeo4jPassword(password.strip());
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
        if (opts.txMemoryMax != null) {
            cfg.put(GraphDatabaseSettings.memory_transaction_max_size, opts.txMemoryMax);
        }
        // LOAD CSV: no file URLs, and an import folder that holds nothing should they be allowed.
        cfg.put(GraphDatabaseSettings.allow_file_urls, false);
        cfg.put(GraphDatabaseSettings.load_csv_file_url_root, emptyImportFolder(opts.home));
        // ... and no network address either: every IPv4 and IPv6 address is blocked.
        cfg.put(GraphDatabaseInternalSettings.cypher_ip_blocklist, List.of(new IPAddressString("0.0.0.0/0"), new IPAddressString("::/0")));
        // Only the procedures the callers of this database use are loaded at all.
        cfg.put(GraphDatabaseSettings.procedure_allowlist, opts.procedures);
        return new DatabaseManagementServiceBuilder(opts.home).setConfig(cfg);
    }

    private static Path emptyImportFolder(Path home) {
        Path folder = home.resolve("import");
        try {
            Files.createDirectories(folder);
            try (var entries = Files.list(folder)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalStateException(folder + " must be empty: LOAD CSV may read nothing");
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot prepare " + folder + ": " + e.getMessage(), e);
        }
        return folder;
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

    private static void exitOnStdinEof(BufferedReader stdin) {
        char[] buf = new char[256];
        try {
            while (stdin.read(buf) != -1) {
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

    private record Options(Path home, int boltPort, Path passwordFile, long pagecache, Long txMemory, Long txMemoryMax, List<String> procedures,
            boolean ignoreStdin) {
        private static final List<String> VALUED = List.of("--home", "--bolt-port", "--password-file", "--pagecache", "--tx-memory", "--tx-memory-max", "--procedures");

        static Options parse(String[] args) {
            Path home = null;
            Path passwordFile = null;
            boolean passwordStdin = false;
            Integer port = null;
            long pagecache = ByteUnit.mebiBytes(256);
            Long txMemory = null;
            Long txMemoryMax = null;
            List<String> procedures = List.of();
            boolean ignoreStdin = false;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--ignore-stdin")) {
                    ignoreStdin = true;
                    continue;
                }
                if (arg.equals("--password-stdin")) {
                    passwordStdin = true;
                    continue;
                }
                if (!VALUED.contains(arg)) {
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
                    case "--tx-memory" -> txMemory = parseSize(arg, value);
                    case "--tx-memory-max" -> txMemoryMax = parseSize(arg, value);
                    default -> procedures = List.of(value.split(","));
                }
            }
            if (home == null || port == null || (passwordFile == null) == !passwordStdin) {
                throw new IllegalArgumentException("--home, --bolt-port and one of --password-file or --password-stdin are required");
            }
            return new Options(home, port, passwordFile, pagecache, txMemory, txMemoryMax, procedures, ignoreStdin);
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
