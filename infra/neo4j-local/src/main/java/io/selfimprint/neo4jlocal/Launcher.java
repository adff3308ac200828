package io.selfimprint.neo4jlocal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * Starts the embedded Neo4j 5.26 engine with Bolt on loopback and authentication on.
 *
 * <p>Arguments: --home DIR --bolt-port N --password-file FILE [--pagecache SIZE] [--heap-hint]
 * [--tx-log-retention POLICY]. The retention is Neo4j's {@code db.tx_log.rotation.retention_policy}
 * ({@code keep_none} by default: Community has no incremental backup to keep logs for, and a
 * deleted user's words then leave the log at the next {@link ErasureProcedures} call).
 * Prints one line "READY bolt://127.0.0.1:N" once Bolt accepts connections, then runs until
 * SIGTERM/SIGINT, when it shuts the database down cleanly (so restarts keep all data).
 */
public final class Launcher {
  private Launcher() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    Path home = Path.of(require(opts, "--home")).toAbsolutePath();
    int boltPort = Integer.parseInt(require(opts, "--bolt-port"));
    Path passwordFile = Path.of(require(opts, "--password-file"));
    String password = Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
    if (password.length() < 8) {
      throw new IllegalArgumentException("password in " + passwordFile + " must have >= 8 characters");
    }
    String pageCache = opts.getOrDefault("--pagecache", "256m");
    String retention = opts.getOrDefault("--tx-log-retention", "keep_none");

    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(home)
            .setConfig(GraphDatabaseSettings.auth_enabled, true)
            .setConfig(GraphDatabaseSettings.pagecache_memory, parseBytes(pageCache))
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", boltPort))
            .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", boltPort))
            .setConfig(HttpConnector.enabled, false)
            .setConfig(GraphDatabaseSettings.keep_logical_logs, retention)
            .build();
    // The procedures a server would load from its plugins folder, registered in place.
    ((GraphDatabaseAPI) dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME))
        .getDependencyResolver()
        .resolveDependency(GlobalProcedures.class)
        .registerProcedure(ErasureProcedures.class);

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  dbms.shutdown();
                  stopped.countDown();
                },
                "neo4j-local-shutdown"));

    // Embedded access bypasses auth, so this is how the generated password reaches the user store.
    // Only when it changed: Neo4j refuses (and logs) setting the password it already has, which
    // every restart on an existing data dir used to do. The marker holds the password's digest.
    Path applied = home.resolve("password-applied.sha256");
    String digest = sha256(password);
    if (!Files.exists(applied)
        || !Files.readString(applied, StandardCharsets.UTF_8).strip().equals(digest)) {
      GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
      Map<String, Object> params = new HashMap<>();
      params.put("pw", password);
      try {
        system.executeTransactionally(
            "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", params);
      } catch (RuntimeException e) {
        // A data dir from before the marker: the password is already this one.
        if (!String.valueOf(e.getMessage()).contains("cannot be the same")) {
          throw e;
        }
      }
      Files.writeString(applied, digest + "\n", StandardCharsets.UTF_8);
    }
    // Touch the default database so that it is online before we announce readiness.
    dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");

    System.out.println("READY bolt://127.0.0.1:" + boltPort);
    System.out.flush();
    stopped.await();
  }

  private static String sha256(String text) throws java.security.NoSuchAlgorithmException {
    byte[] hash =
        java.security.MessageDigest.getInstance("SHA-256")
            .digest(text.getBytes(StandardCharsets.UTF_8));
    return java.util.HexFormat.of().formatHex(hash);
  }

  private static long parseBytes(String size) {
    String s = size.trim().toLowerCase();
    long mult = 1;
    if (s.endsWith("g")) {
      mult = 1024L * 1024 * 1024;
      s = s.substring(0, s.length() - 1);
    } else if (s.endsWith("m")) {
      mult = 1024L * 1024;
      s = s.substring(0, s.length() - 1);
    } else if (s.endsWith("k")) {
      mult = 1024L;
      s = s.substring(0, s.length() - 1);
    }
    return Long.parseLong(s) * mult;
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      out.put(args[i], args[i + 1]);
    }
    return out;
  }

  private static String require(Map<String, String> opts, String key) {
    String v = opts.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key);
    }
    return v;
  }
}
