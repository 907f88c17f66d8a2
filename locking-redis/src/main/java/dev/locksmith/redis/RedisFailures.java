package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.redisson.RedissonShutdownException;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisNodeNotFoundException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.RedisReconnectedException;
import org.redisson.client.RedisResponseTimeoutException;
import org.redisson.client.RedisRetryException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.WriteRedisConnectionException;

/**
 * Turns a Redisson failure into one clean line for a {@link
 * dev.locksmith.core.LockProviderException}: which node, and what happened, such as {@code
 * 127.0.0.1:6379 unreachable: connection refused} or {@code 127.0.0.1:6379 did not answer within
 * 800ms}. Redisson's own messages carry the command with its script source, its parameters (Netty
 * buffers among them), the channel, and advice that fits a busy client rather than a server that is
 * down ("Check CPU usage of the JVM"); none of that is kept. The original stays the cause.
 */
final class RedisFailures {
  /** Longest reason kept from an unrecognised message. */
  private static final int MAX_REASON = 200;

  // "redisClient=[addr=redis://127.0.0.1:6379,..." in a connection's description.
  private static final Pattern CLIENT_ADDRESS =
      Pattern.compile("addr=(?:rediss?|valkeys?)://([^,\\]\\s/]+:\\d{1,5})");
  // "127.0.0.1/127.0.0.1:6379" or "localhost/127.0.0.1:6379": Netty's host/ip:port.
  private static final Pattern HOST_SLASH_ADDRESS =
      Pattern.compile("([A-Za-z0-9_.\\-]+)/[0-9a-fA-F.:\\[\\]]*?:(\\d{1,5})\\b");
  // "Redis server response timeout (800 ms)".
  private static final Pattern RESPONSE_TIMEOUT = Pattern.compile("timeout \\((\\d+) ?ms\\)");

  /** What an endpoint that does not know {@code EVALSHA} (a Sentinel port, mostly) is told. */
  static final String NO_SCRIPTS =
      "answered EVAL/EVALSHA with ERR unknown command: is this a Sentinel port? A Sentinel set-up"
          + " is given as a Redisson YAML file with sentinelServersConfig"
          + " (redis:///path/to/redisson.yaml), not as redis://HOST:PORT";

  /** Where Redisson's details begin in a message; the reason is what comes before. */
  private static final String[] DETAILS = {
    ". channel:",
    ". script:",
    " script:",
    ", on @user_script",
    " channel:",
    ", command:",
    " command:",
    ". Node source:",
    " Node source:",
    ", params:",
    "Check connection",
    "Check CPU",
    "Try to increase",
    "Increase connection pool",
    " after "
  };

  private RedisFailures() {}

  /**
   * One line saying what went wrong, naming the node when Redisson's exception does: never the
   * command, its script or parameters, and never a line break.
   */
  static String reason(Throwable failure) {
    Throwable error = unwrap(failure);
    String node = node(error);
    String at = node == null ? "" : node + " ";
    Throwable connect = find(error, ConnectException.class);
    if (connect != null) {
      return at + "unreachable: " + connectProblem(connect);
    }
    Throwable unknownHost = find(error, UnknownHostException.class);
    if (unknownHost != null) {
      return at + "unreachable: unknown host " + firstLine(unknownHost.getMessage());
    }
    if (find(error, NoRouteToHostException.class) != null) {
      return at + "unreachable: no route to host";
    }
    // Netty's connect timeout is a ConnectException, handled above; this is Redisson's wait for
    // a connection to be set up (connected, authenticated, database selected).
    if (error instanceof RedisConnectionException && find(error, TimeoutException.class) != null) {
      return at + "unreachable: no connection within the connect timeout";
    }
    RedisResponseTimeoutException responseTimeout =
        find(error, RedisResponseTimeoutException.class);
    if (responseTimeout != null) {
      return at + "did not answer within " + responseTimeout(responseTimeout);
    }
    if (find(error, WriteRedisConnectionException.class) != null) {
      return at
          + "unreachable: "
          + (find(error, ClosedChannelException.class) != null
              ? "connection closed"
              : "the command could not be sent");
    }
    if (find(error, RedisTimeoutException.class) != null) {
      return at + "unreachable: no connection to send the command on in time";
    }
    if (find(error, RedisRetryException.class) != null
        || find(error, RedisReconnectedException.class) != null) {
      return at + "unreachable: connection lost";
    }
    if (find(error, RedisNodeNotFoundException.class) != null) {
      return "no Redis node for the lock's slot: " + cleaned(error);
    }
    RedisException refusal = serverRefusal(error);
    if (refusal != null) {
      // The server answered the connection's AUTH or SELECT with an error: WRONGPASS, NOAUTH, a
      // database index out of range. It is up, and the URL needs fixing.
      return at + "refused the connection: " + firstLine(cleaned(refusal));
    }
    if (find(error, RedisConnectionException.class) != null) {
      return at + "unreachable: " + cleaned(find(error, RedisConnectionException.class));
    }
    if (find(error, RedissonShutdownException.class) != null) {
      return "the Redisson client is shut down";
    }
    if (error instanceof IllegalStateException
        && String.valueOf(error.getMessage()).toLowerCase(Locale.ROOT).contains("shutdown")) {
      return "the Redisson client is shut down";
    }
    if (find(error, Scripts.NoScripts.class) != null) {
      return at + NO_SCRIPTS;
    }
    if (find(error, RedisOutOfMemoryException.class) != null) {
      // Under noeviction a full Redis refuses writes ("OOM command not allowed ...").
      return at + "is out of memory: " + cleaned(find(error, RedisOutOfMemoryException.class));
    }
    if (error instanceof RedisException) {
      // An error reply from the server, such as OOM, READONLY, NOSCRIPT or a wrong password.
      return at + "refused the command: " + cleaned(error);
    }
    return error.getClass().getSimpleName() + ": " + cleaned(error);
  }

  /**
   * The server's error reply under a failed connection (an exception of the server's, not of the
   * client's connecting), or null.
   */
  private static @Nullable RedisException serverRefusal(Throwable error) {
    if (find(error, RedisConnectionException.class) == null) {
      return null;
    }
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof RedisException reply
          && !(cause instanceof RedisConnectionException)
          && !(cause instanceof RedisTimeoutException)
          && !(cause instanceof RedisRetryException)
          && !(cause instanceof RedisReconnectedException)) {
        return reply;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return null;
  }

  /** The failure without the wrappers of futures. */
  static Throwable unwrap(Throwable failure) {
    Throwable error = failure;
    while ((error instanceof CompletionException || error instanceof ExecutionException)
        && error.getCause() != null
        && error.getCause() != error) {
      error = error.getCause();
    }
    return error;
  }

  private static String connectProblem(Throwable connect) {
    String message = String.valueOf(connect.getMessage()).toLowerCase(Locale.ROOT);
    if (message.contains("refused")) {
      return "connection refused";
    }
    if (message.contains("timed out")) {
      return "no connection within the connect timeout";
    }
    return firstLine(cleaned(connect));
  }

  private static String responseTimeout(Throwable timeout) {
    Matcher matcher = RESPONSE_TIMEOUT.matcher(String.valueOf(timeout.getMessage()));
    if (matcher.find()) {
      try {
        return Durations.format(Duration.ofMillis(Long.parseLong(matcher.group(1))));
      } catch (NumberFormatException e) {
        // too long to be a timeout; fall through
      }
    }
    return "the response timeout";
  }

  /** The node a Redisson exception names, as {@code host:port}, or null. */
  static @Nullable String node(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null) {
        Matcher client = CLIENT_ADDRESS.matcher(message);
        if (client.find()) {
          return client.group(1);
        }
        Matcher netty = HOST_SLASH_ADDRESS.matcher(message);
        if (netty.find()) {
          return netty.group(1) + ":" + netty.group(2);
        }
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return null;
  }

  private static <T extends Throwable> @Nullable T find(Throwable error, Class<T> type) {
    int depth = 0;
    for (Throwable cause = error; cause != null && depth < 20; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
      if (cause.getCause() == cause) {
        break;
      }
      depth++;
    }
    return null;
  }

  /** The message's reason without Redisson's details, on one line and at most 200 characters. */
  static String cleaned(@Nullable Throwable error) {
    if (error == null) {
      return "unknown error";
    }
    String message = error.getMessage();
    if (message == null || message.isBlank()) {
      return error.getClass().getSimpleName();
    }
    String reason = firstLine(message);
    for (String details : DETAILS) {
      int at = reason.indexOf(details);
      if (at > 0) {
        reason = reason.substring(0, at);
      }
    }
    reason = reason.strip();
    while (reason.endsWith(".") || reason.endsWith(",") || reason.endsWith("!")) {
      reason = reason.substring(0, reason.length() - 1).strip();
    }
    if (reason.isEmpty()) {
      return error.getClass().getSimpleName();
    }
    return reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) + "..." : reason;
  }

  private static String firstLine(@Nullable String message) {
    if (message == null) {
      return "";
    }
    int end = message.length();
    int newline = message.indexOf('\n');
    if (newline >= 0) {
      end = newline;
    }
    int cr = message.indexOf('\r');
    if (cr >= 0 && cr < end) {
      end = cr;
    }
    return message.substring(0, end).strip();
  }
}
