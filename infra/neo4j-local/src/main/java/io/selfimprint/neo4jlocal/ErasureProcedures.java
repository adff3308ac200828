package io.selfimprint.neo4jlocal;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.neo4j.common.DependencyResolver;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.schema.IndexDefinition;
import org.neo4j.graphdb.schema.IndexType;
import org.apache.lucene.index.IndexWriter;
import org.neo4j.internal.kernel.api.exceptions.schema.IndexNotFoundKernelException;
import org.neo4j.internal.schema.IndexDescriptor;
import org.neo4j.kernel.api.impl.index.AbstractLuceneIndex;
import org.neo4j.kernel.api.impl.index.partition.AbstractIndexPartition;
import org.neo4j.kernel.impl.api.index.IndexingService;
import org.neo4j.kernel.impl.coreapi.schema.IndexDefinitionImpl;
import org.neo4j.internal.id.IdController;
import org.neo4j.internal.id.IdGenerator;
import org.neo4j.internal.id.IdGeneratorFactory;
import org.neo4j.internal.recordstorage.RecordIdType;
import org.neo4j.kernel.impl.transaction.log.checkpoint.CheckPointer;
import org.neo4j.kernel.impl.transaction.log.checkpoint.SimpleTriggerInfo;
import org.neo4j.kernel.impl.transaction.log.files.LogFile;
import org.neo4j.kernel.impl.transaction.log.files.LogFiles;
import org.neo4j.kernel.impl.transaction.log.rotation.LogRotateEvent;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Procedure;

/**
 * Lets the product push deleted words out of Neo4j's files (issue 37).
 *
 * <p>Deleting a node does not remove its text from disk, in three places. The record store only
 * marks the records that held it unused, so the bytes stay in the string and array stores until
 * a later write reuses those records. Full-text indexes keep a deleted node's words in their
 * Lucene segments until a merge. The transaction log keeps every change, the deletion's
 * before-image included, until the log file rotates (at {@code db.tx_log.rotation.size}), a
 * checkpoint follows, and the file falls out of {@code db.tx_log.rotation.retention_policy}. On
 * a quiet database that takes weeks, and Community has no {@code db.checkpoint()}.
 *
 * <p>{@code selfimprint.store.flushDeleted()} handles all three. It fills the free records
 * with filler in temporary nodes and deletes those nodes. It merges the deleted documents out of
 * every full-text index. Then it rotates the log and forces a checkpoint, twice, so that with
 * {@code keep_none} only files written after the deletion remain. A deletion's records become
 * free only at the id maintenance after its transaction closed: call it twice.
 *
 * <p>The class works as a server plugin: put the jar in {@code plugins/} and set {@code
 * dbms.security.procedures.unrestricted=selfimprint.*}, because it reads the kernel's
 * internals. The local launcher registers it directly.
 */
public final class ErasureProcedures {

  /** The label of the temporary filler nodes and of the one node each rotation touches. */
  public static final String MARK_LABEL = "SelfImprintStoreMark";

  // Payload bytes of one string or array block (128-byte records less their header), and how
  // many blocks one filler transaction takes, so a large erasure fills in bounded steps.
  private static final int BLOCK_BYTES = 120;
  private static final int BLOCKS_PER_TRANSACTION = 2_000;
  private static final int PROPERTY_RECORDS_PER_TRANSACTION = 2_000;
  private static final int MAX_ROUNDS = 10_000;

  /** One row: what was overwritten and which transaction log files remain. */
  public static final class Flushed {
    public final long stringBlocks;
    public final long arrayBlocks;
    public final long propertyRecords;
    public final long fulltextPartitions;
    public final long lowestLogVersion;
    public final long currentLogVersion;

    Flushed(long strings, long arrays, long properties, long merged, long lowest, long current) {
      this.stringBlocks = strings;
      this.arrayBlocks = arrays;
      this.propertyRecords = properties;
      this.fulltextPartitions = merged;
      this.lowestLogVersion = lowest;
      this.currentLogVersion = current;
    }
  }

  private static final Object ONE_AT_A_TIME = new Object();

  @Context public GraphDatabaseAPI database;

  @Procedure(name = "selfimprint.store.flushDeleted", mode = Mode.DBMS)
  @Description(
      "Overwrites the records deleted data left unused in this database's stores, then rotates"
          + " the transaction log and checkpoints so the retention policy prunes the older files.")
  public Stream<Flushed> flushDeleted() throws IOException {
    // One flush at a time: a second one would delete the first one's filler under it.
    synchronized (ONE_AT_A_TIME) {
      return Stream.of(flush());
    }
  }

  private Flushed flush() throws IOException {
    DependencyResolver deps = database.getDependencyResolver();
    IdGeneratorFactory ids = deps.resolveDependency(IdGeneratorFactory.class);
    // Deleted records become reusable only after this maintenance (otherwise about a second).
    deps.resolveDependency(IdController.class).maintenance();
    long strings = fill(ids.get(RecordIdType.STRING_BLOCK), Filler.STRING);
    long arrays = fill(ids.get(RecordIdType.ARRAY_BLOCK), Filler.ARRAY);
    long properties = fill(ids.get(RecordIdType.PROPERTY), Filler.PROPERTIES);
    deleteFiller();
    long merged = mergeFulltextDeletes(deps);
    LogFile log = deps.resolveDependency(LogFiles.class).getLogFile();
    CheckPointer checkPointer = deps.resolveDependency(CheckPointer.class);
    // The first round moves the last transaction (the deletions above) out of the current file;
    // the second lets the checkpoint prune the file that held it.
    for (int round = 0; round < 2; round++) {
      log.getLogRotation().rotateLogFile(() -> LogRotateEvent.NULL);
      // A checkpoint keeps the file that holds the last committed transaction: one small write
      // after the rotation moves that to the new file.
      try (Transaction tx = database.beginTx()) {
        tx.execute("MERGE (m:" + MARK_LABEL + " {id: 'txlog'}) SET m.at = timestamp()").close();
        tx.commit();
      }
      checkPointer.forceCheckPoint(new SimpleTriggerInfo("selfimprint.store.flushDeleted"));
    }
    return new Flushed(
        strings, arrays, properties, merged, log.getLowestLogVersion(), log.getCurrentLogVersion());
  }

  private enum Filler {
    STRING,
    ARRAY,
    PROPERTIES
  }

  /**
   * Takes unused records of one store with filler nodes until none is left (or the store grows
   * instead, when another writer took them first). Returns how many it took.
   */
  private long fill(IdGenerator generator, Filler kind) {
    long taken = 0;
    for (int round = 0; round < MAX_ROUNDS; round++) {
      long unused = generator.getUnusedIdCount();
      if (unused <= 0) {
        break;
      }
      long highBefore = generator.getHighId();
      int step =
          (int)
              Math.min(
                  unused,
                  kind == Filler.PROPERTIES
                      ? PROPERTY_RECORDS_PER_TRANSACTION
                      : BLOCKS_PER_TRANSACTION);
      try (Transaction tx = database.beginTx()) {
        switch (kind) {
          case STRING -> {
            char[] text = new char[step * BLOCK_BYTES];
            Arrays.fill(text, '.');
            tx.createNode(Label.label(MARK_LABEL)).setProperty("filler", new String(text));
          }
          case ARRAY -> {
            byte[] bytes = new byte[step * BLOCK_BYTES];
            Arrays.fill(bytes, (byte) -1); // all 8 bits used: Neo4j packs small values tighter
            tx.createNode(Label.label(MARK_LABEL)).setProperty("filler", bytes);
          }
          case PROPERTIES -> {
            for (int i = 0; i < step; i++) {
              // Four small values fill one property record's four blocks.
              Node node = tx.createNode(Label.label(MARK_LABEL));
              for (int p = 0; p < 4; p++) {
                node.setProperty("filler" + p, p);
              }
            }
          }
        }
        tx.commit();
      }
      taken += step;
      if (generator.getHighId() > highBefore) {
        break; // new records at the end: the free ones are used up
      }
    }
    return taken;
  }

  /**
   * Full-text indexes keep a deleted node's words in their Lucene segments until a merge
   * rewrites them. This asks each partition's writer to merge away its deleted documents now.
   * The writer is not public API: it is found by walking the index proxy's fields, so a Neo4j
   * upgrade that moves it fails the erasure test (tests/e2e/test_api_erasure_history.py) rather
   * than silently leaving words behind. Returns how many partitions were merged.
   */
  private long mergeFulltextDeletes(DependencyResolver deps) throws IOException {
    IndexingService indexing = deps.resolveDependency(IndexingService.class);
    List<IndexDescriptor> fulltext = new ArrayList<>();
    try (Transaction tx = database.beginTx()) {
      for (IndexDefinition index : tx.schema().getIndexes()) {
        if (index.getIndexType() == IndexType.FULLTEXT) {
          fulltext.add(((IndexDefinitionImpl) index).getIndexReference());
        }
      }
    }
    long merged = 0;
    for (IndexDescriptor descriptor : fulltext) {
      Object proxy;
      try {
        proxy = indexing.getIndexProxy(descriptor);
      } catch (IndexNotFoundKernelException e) {
        continue; // dropped meanwhile
      }
      for (AbstractLuceneIndex<?> lucene : find(proxy, AbstractLuceneIndex.class, 8)) {
        for (AbstractIndexPartition partition : lucene.getPartitions()) {
          IndexWriter writer = partition.getIndexWriter();
          writer.forceMergeDeletes(true);
          writer.commit();
          partition.maybeRefreshBlocking();
          merged++;
        }
      }
    }
    return merged;
  }

  /** The objects of `type` reachable from `root` through Neo4j's own fields, depth first. */
  private static <T> List<T> find(Object root, Class<T> type, int depth) {
    List<T> found = new ArrayList<>();
    walk(root, type, depth, Collections.newSetFromMap(new IdentityHashMap<>()), found);
    return found;
  }

  private static <T> void walk(
      Object node, Class<T> type, int depth, Set<Object> seen, List<T> found) {
    if (node == null || depth < 0 || !seen.add(node)) {
      return;
    }
    if (type.isInstance(node)) {
      found.add(type.cast(node));
      return;
    }
    for (Class<?> c = node.getClass(); c != null; c = c.getSuperclass()) {
      if (!c.getName().startsWith("org.neo4j.")) {
        continue;
      }
      for (Field field : c.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) || field.getType().isPrimitive()) {
          continue;
        }
        try {
          field.setAccessible(true);
          walk(field.get(node), type, depth - 1, seen, found);
        } catch (ReflectiveOperationException | RuntimeException e) {
          // a field this walk may not read: not a path to the index
        }
      }
    }
  }

  private void deleteFiller() {
    while (true) {
      try (Transaction tx = database.beginTx()) {
        long deleted =
            (long)
                tx.execute(
                        "MATCH (m:"
                            + MARK_LABEL
                            + ") WHERE m.id IS NULL WITH m LIMIT 2000 DETACH DELETE m"
                            + " RETURN count(*) AS n")
                    .next()
                    .get("n");
        tx.commit();
        if (deleted == 0) {
          return;
        }
      }
    }
  }
}
