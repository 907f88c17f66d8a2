package dev.locksmith.tcp;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.spi.ProviderUrl;
import dev.locksmith.tcp.internal.Protocol;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@code tcp://host:port?...} URL, checked.
 *
 * @param host the server host
 * @param port the server port (default 7420)
 * @param secret the shared secret, or null when auth is off
 * @param tls whether to speak TLS
 * @param tlsCa PEM file of certificates to trust, or null for the JVM's trust store
 * @param connectTimeout how long a connect (TCP, TLS, AUTH) may take
 * @param requestTimeout how long a reply may take, beyond any wait the request asks for
 * @param pingInterval how often an otherwise silent connection is checked
 * @param description the URL without parameters, for logs
 */
record TcpProviderSettings(
    String host,
    int port,
    @Nullable String secret,
    boolean tls,
    @Nullable Path tlsCa,
    Duration connectTimeout,
    Duration requestTimeout,
    Duration pingInterval,
    String description) {

  static final Set<String> PARAMETERS =
      Set.of(
          "secret-file",
          "secret",
          "tls",
          "tls-ca",
          "connect-timeout",
          "request-timeout",
          "ping-interval");

  static TcpProviderSettings from(ProviderUrl url) {
    url.requireOnly(PARAMETERS);
    String host = url.host();
    int port = url.port(Protocol.DEFAULT_PORT);
    String path = url.path();
    if (!path.isEmpty() && !path.equals("/")) {
      throw url.error("has path '" + path + "'; a tcp URL is tcp://HOST:PORT?PARAMETERS");
    }
    if (url.uri().getUserInfo() != null) {
      throw url.error("has user info; give the secret with secret-file=PATH");
    }
    String secret = secret(url);
    String ca = url.parameter("tls-ca");
    Path tlsCa = null;
    if (ca != null) {
      tlsCa = Path.of(ca);
      if (!Files.isReadable(tlsCa)) {
        throw url.error("parameter 'tls-ca': cannot read certificate file '" + ca + "'");
      }
    }
    boolean tls = url.booleanParameter("tls", tlsCa != null);
    if (!tls && tlsCa != null) {
      throw url.error("gives 'tls-ca' with tls=false; drop one of them");
    }
    Duration connect = positive(url, "connect-timeout", Duration.ofSeconds(5));
    Duration request = positive(url, "request-timeout", Duration.ofSeconds(10));
    Duration ping = positive(url, "ping-interval", Duration.ofSeconds(5));
    String description =
        "tcp://"
            + (host.contains(":") ? "[" + host + "]" : host)
            + ":"
            + port
            + (tls ? " (tls)" : "");
    return new TcpProviderSettings(
        host, port, secret, tls, tlsCa, connect, request, ping, description);
  }

  private static @Nullable String secret(ProviderUrl url) {
    String file = url.parameter("secret-file");
    String inline = url.parameter("secret");
    if (file != null && inline != null) {
      throw url.error("gives both 'secret-file' and 'secret'; use secret-file");
    }
    if (inline != null) {
      if (inline.isBlank()) {
        throw url.error("parameter 'secret' is empty");
      }
      return oneLine(url, inline.strip(), "parameter 'secret'");
    }
    if (file == null) {
      return null;
    }
    String text;
    try {
      text = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
    } catch (IOException | RuntimeException e) {
      throw new LockConfigurationException(
          "Provider URL '"
              + url.redacted()
              + "' parameter 'secret-file': cannot read '"
              + file
              + "': "
              + e,
          e);
    }
    if (text.isEmpty()) {
      throw url.error("parameter 'secret-file': file '" + file + "' is empty");
    }
    return oneLine(url, text, "parameter 'secret-file': file '" + file + "'");
  }

  /**
   * Refuses a secret with a line break or another control character inside: the {@code AUTH} line
   * would end there, and what follows would be sent as a request of its own.
   */
  private static String oneLine(ProviderUrl url, String secret, String where) {
    if (secret.chars().anyMatch(Character::isISOControl)) {
      throw url.error(
          where
              + " holds a line break or another control character, which an AUTH line cannot"
              + " carry; write the secret on one line");
    }
    return secret;
  }

  private static Duration positive(ProviderUrl url, String name, Duration defaultValue) {
    Duration value = url.durationParameter(name, defaultValue);
    if (value.toMillis() < 1) {
      // Netty counts these in whole milliseconds, where 0 turns the timeout or the ping off.
      throw url.error(
          "parameter '" + name + "' is " + value + "; expected at least 1ms such as 5s");
    }
    return value;
  }

  /**
   * The server as errors name it, such as {@code lock server 127.0.0.1:7420} ({@code (tls)}
   * appended with TLS).
   */
  String server() {
    return "lock server "
        + (host.contains(":") ? "[" + host + "]" : host)
        + ":"
        + port
        + (tls ? " (tls)" : "");
  }

  @Override
  public String toString() {
    return description;
  }
}
