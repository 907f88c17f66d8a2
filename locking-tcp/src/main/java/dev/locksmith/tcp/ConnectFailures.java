package dev.locksmith.tcp;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockProviderException;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.NotSslRecordException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * One-line errors for a connection that could not be made: what failed, the server, and why, with
 * the original exception as the cause.
 */
final class ConnectFailures {
  private ConnectFailures() {}

  /** The TCP connect failed ({@code cause} from the connect future, or null on our own timeout). */
  static LockProviderException connect(TcpProviderSettings settings, @Nullable Throwable cause) {
    String server = settings.server();
    String why;
    if (cause == null || cause instanceof ConnectTimeoutException) {
      why = "did not accept the connection within " + connectTimeout(settings);
    } else if (cause instanceof ConnectException) {
      why = "refused the connection";
    } else if (cause instanceof UnknownHostException
        || cause instanceof UnresolvedAddressException) {
      why = "cannot be reached: unknown host '" + settings.host() + "'";
    } else if (cause instanceof NoRouteToHostException) {
      why = "cannot be reached: no route to host";
    } else {
      why = "cannot be reached: " + reason(cause);
    }
    LockProviderException e = new LockProviderException(server + " " + why);
    if (cause != null) {
      e.initCause(cause);
    }
    return e;
  }

  /** The TLS handshake did not complete in time ({@code cause} null) or failed. */
  static LockProviderException handshake(TcpProviderSettings settings, @Nullable Throwable cause) {
    if (cause == null) {
      return new LockProviderException(
          settings.server()
              + " did not complete the TLS handshake within "
              + connectTimeout(settings));
    }
    for (Throwable c = cause; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof NotSslRecordException) {
        // The server answered in plain text: it does not speak TLS.
        return new LockProviderException(
            settings.server()
                + " does not speak TLS; remove tls=true (and tls-ca) from the URL, or start the"
                + " server with TLS",
            cause);
      }
    }
    return new LockProviderException(
        "TLS handshake with " + settings.server() + " failed: " + reason(cause), cause);
  }

  /** AUTH got no reply before the connect deadline. */
  static LockProviderException authTimeout(TcpProviderSettings settings, Throwable cause) {
    return new LockProviderException(
        settings.server() + " did not answer AUTH within " + connectTimeout(settings), cause);
  }

  /** {@code 2s (connect-timeout)}. */
  static String connectTimeout(TcpProviderSettings settings) {
    return Durations.format(settings.connectTimeout()) + " (connect-timeout)";
  }

  /** {@code 10s (request-timeout)}. */
  static String requestTimeout(TcpProviderSettings settings) {
    return Durations.format(settings.requestTimeout()) + " (request-timeout)";
  }

  /**
   * The reason an exception gives, on one line and without its class name where it has a message
   * (the innermost TLS message for handshake failures, which Netty wraps).
   */
  static String reason(Throwable cause) {
    Throwable shown = cause;
    for (int i = 0; i < 8 && shown.getCause() != null && shown.getCause() != shown; i++) {
      if (!(shown.getCause() instanceof SSLException)) {
        break;
      }
      shown = shown.getCause();
    }
    String message = shown.getMessage();
    String text =
        message == null || message.isBlank() ? shown.getClass().getSimpleName() : message.strip();
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline).strip();
  }
}
