package dev.locksmith.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.api.RScript;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNoScriptException;

/**
 * Runs the provider's scripts by {@code EVALSHA}, loading a script once ({@code SCRIPT LOAD}) when
 * the node answers {@code NOSCRIPT}, and sending it again once: at most three commands per run,
 * each bounded by Redisson's timeout and retries.
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

  private final RScript script;

  Scripts(RScript script) {
    this.script = script;
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
                return script
                    .scriptLoadAsync(key, lua)
                    .toCompletableFuture()
                    .thenCompose(loaded -> this.<T>evalSha(key, sha, type, keys, args));
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
