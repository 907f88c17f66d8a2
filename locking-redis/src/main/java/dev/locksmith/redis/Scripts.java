package dev.locksmith.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

/**
 * Runs the provider's scripts by {@code EVALSHA}; when the node answers {@code NOSCRIPT}, the
 * script goes once through Redisson's {@code eval} with its source, which loads it on the node that
 * answered (the one a redirect reached) and runs it there. Each command is bounded by Redisson's
 * timeout and retries.
 *
 * <p>Not Redisson's script cache ({@code useScriptCache}): when a node answers {@code EVALSHA} with
 * {@code ERR unknown command}, as a Sentinel port does, Redisson 4.0 sends the script again, and
 * again, without end, so the call hung and the endpoint was flooded. Here such an answer ends the
 * call at once with {@link NoScripts}, which names the likely mistake. Every script runs on the
 * master of its key's node ({@link RScript.Mode#READ_WRITE}), the status script too: a replica may
 * lag the master.
 */
final class Scripts {
  private static final Map<String, String> SHAS = new ConcurrentHashMap<>();

  private final RedissonClient client;
  private final RScript script;

  Scripts(RedissonClient client) {
    this.client = client;
    this.script = client.getScript(StringCodec.INSTANCE);
  }

  /**
   * A script's reply and how many replicas acknowledged the writes of its connection.
   *
   * @param reply the script's reply
   * @param replicas the replicas that acknowledged, as {@code WAIT} counted them
   */
  record Acked<T>(T reply, int replicas) {}

  /**
   * Runs {@code lua} on the master of {@code key}'s node and then {@code WAIT replicas timeout} on
   * the same connection (a Redisson batch with {@code sync}), so the count covers the script's
   * writes. The script goes as {@code EVAL}, with its source: Redisson sends a batch's scripts that
   * way. Bounded by Redisson's timeout plus {@code timeout}, and its retries.
   */
  @SuppressWarnings("unchecked")
  <T> CompletableFuture<Acked<T>> runAcked(
      String key,
      String lua,
      RScript.ReturnType type,
      List<Object> keys,
      int replicas,
      Duration timeout,
      Object... args) {
    RBatch batch = client.createBatch(BatchOptions.defaults().sync(replicas, timeout));
    batch
        .getScript(StringCodec.INSTANCE)
        .evalAsync(key, RScript.Mode.READ_WRITE, lua, type, keys, args);
    return batch
        .executeAsync()
        .toCompletableFuture()
        .handle(
            (result, error) -> {
              if (error != null) {
                Throwable cause = RedisFailures.unwrap(error);
                throw new CompletionException(
                    NoScripts.isUnknownCommand(cause) ? new NoScripts(cause) : cause);
              }
              return new Acked<>((T) result.getResponses().get(0), result.getSyncedSlaves());
            });
  }

  /**
   * Runs {@code lua} on the master of {@code key}'s node; the stage fails with Redisson's
   * exception, or with {@link NoScripts} when the node does not know {@code EVALSHA}.
   */
  <T> CompletableFuture<T> run(
      String key, String lua, RScript.ReturnType type, List<Object> keys, Object... args) {
    String sha = sha(lua);
    return this.<T>evalSha(key, sha, type, keys, args)
        .handle(
            (reply, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(reply);
              }
              Throwable cause = RedisFailures.unwrap(error);
              if (cause instanceof RedisNoScriptException) {
                // Redisson's eval, not our own SCRIPT LOAD and EVALSHA again: a SCRIPT LOAD by key
                // goes to the node the client believes owns the slot, which after a migration is
                // not the node the redirected EVALSHA reached; eval loads it where it is run.
                return script
                    .<T>evalAsync(key, RScript.Mode.READ_WRITE, lua, type, keys, args)
                    .toCompletableFuture();
              }
              if (NoScripts.isUnknownCommand(cause)) {
                return CompletableFuture.<T>failedFuture(new NoScripts(cause));
              }
              return CompletableFuture.<T>failedFuture(cause);
            })
        .thenCompose(stage -> stage);
  }

  private <T> CompletableFuture<T> evalSha(
      String key, String sha, RScript.ReturnType type, List<Object> keys, Object... args) {
    return script
        .<T>evalShaAsync(key, RScript.Mode.READ_WRITE, sha, type, keys, args)
        .toCompletableFuture();
  }

  /** The SHA-1 of {@code lua} in lower-case hex, as Redis names a loaded script. */
  static String sha(String lua) {
    return SHAS.computeIfAbsent(
        lua,
        text -> {
          try {
            return HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-1")
                        .digest(text.getBytes(StandardCharsets.UTF_8)));
          } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-1", e);
          }
        });
  }

  /**
   * A node answered a script with {@code ERR unknown command}: not a Redis server that runs
   * scripts, most likely a Sentinel port given as a server's address. Its message is Redisson's
   * first line; the original is the cause.
   */
  static final class NoScripts extends RedisException {
    private static final long serialVersionUID = 1L;

    NoScripts(Throwable cause) {
      super(RedisFailures.cleaned(cause), cause);
    }

    static boolean isUnknownCommand(Throwable error) {
      return error instanceof RedisException
          && String.valueOf(error.getMessage()).startsWith("ERR unknown command");
    }
  }
}
