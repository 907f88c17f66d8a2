package dev.locksmith.core.spi;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockConfigurationException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A parsed provider URL such as {@code tcp://host:7420?secret-file=/etc/lock.secret}. Every
 * accessor that finds a wrong part fails with a {@link LockConfigurationException} that quotes the
 * URL and names the part.
 *
 * @param text the URL as given, which may contain secrets; use {@link #redacted()} in messages
 * @param uri the parsed URL
 * @param parameters the query parameters in order, decoded
 */
public record ProviderUrl(String text, URI uri, Map<String, String> parameters) {

  /**
   * Copies the parameters.
   *
   * @param text see {@link #text()}
   * @param uri see {@link #uri()}
   * @param parameters see {@link #parameters()}
   */
  public ProviderUrl {
    parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
  }

  /**
   * Parses a provider URL.
   *
   * @param text the URL
   * @return the parsed URL
   */
  public static ProviderUrl parse(String text) {
    String trimmed = text.strip();
    if (trimmed.isEmpty()) {
      throw new LockConfigurationException(
          "Provider URL is empty; expected one such as mem:, file:///mnt/locks,"
              + " tcp://host:7420 or redis://host:6379");
    }
    refuseUnencodedUserInfo(trimmed);
    URI uri;
    try {
      // A bare scheme such as "mem:" is not a URI to java.net.URI; read it as "mem:/".
      String parsed = trimmed.matches("[A-Za-z][A-Za-z0-9+.-]*:") ? trimmed + "/" : trimmed;
      uri = new URI(bracesEncodedInQuery(parsed));
    } catch (URISyntaxException e) {
      // A URL that fails to parse is often one whose password has a character to escape: the
      // message and its cause (whose message repeats the input) show it masked.
      throw new LockConfigurationException(
          "Provider URL '"
              + redact(trimmed)
              + "' is malformed at index "
              + e.getIndex()
              + ": "
              + e.getReason(),
          new URISyntaxException(redact(e.getInput()), e.getReason(), e.getIndex()));
    }
    if (uri.getScheme() == null) {
      throw new LockConfigurationException(
          "Provider URL '"
              + redact(trimmed)
              + "' has no scheme; expected one such as mem:, file:///mnt/locks,"
              + " tcp://host:7420 or redis://host:6379");
    }
    if (uri.getRawFragment() != null) {
      // java.net.URI ends the query at '#': a secret or prefix holding one was cut short.
      throw new LockConfigurationException(
          "Provider URL '"
              + redact(trimmed)
              + "' has a '#', which ends the URL there (what follows is a fragment, which"
              + " providers do not read); percent-encode a '#' in a value as %23");
    }
    String rawQuery = uri.getRawQuery();
    if (uri.isOpaque()) {
      String ssp = uri.getRawSchemeSpecificPart();
      int question = ssp.indexOf('?');
      rawQuery = question < 0 ? null : ssp.substring(question + 1);
    }
    return new ProviderUrl(trimmed, uri, parseQuery(trimmed, rawQuery));
  }

  /**
   * Refuses user info (a password, mostly) holding an unencoded {@code /}, {@code ?}, {@code #} or
   * {@code @}: the first three end the authority early, so that what follows reads as a path, a
   * query or a fragment, and the password would be shown as a host, a port or a parameter's name.
   * Seen as an authority whose port is not a number while an {@code @} follows it, or one with two
   * {@code @}.
   */
  private static void refuseUnencodedUserInfo(String text) {
    int start = text.indexOf("://");
    if (start < 0) {
      return;
    }
    start += 3;
    int end = start;
    while (end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
      end++;
    }
    String authority = text.substring(start, end);
    int at = authority.indexOf('@');
    int colon = authority.lastIndexOf(':');
    boolean unencoded =
        at >= 0
            ? authority.indexOf('@', at + 1) >= 0
            : text.indexOf('@', end) >= 0
                && colon >= 0
                && !authority.endsWith("]")
                && !authority.substring(colon + 1).chars().allMatch(Character::isDigit);
    if (unencoded) {
      throw new LockConfigurationException(
          "Provider URL '"
              + redact(text)
              + "' has user info (a password, say) with an unencoded '/', '?', '#' or '@';"
              + " percent-encode them in the URL (%2F, %3F, %23, %40)");
    }
  }

  /**
   * Percent-encodes braces in the query: java.net.URI refuses them, but a parameter value may hold
   * one (a Redis prefix with a hash tag), and the provider, not the URI parser, says whether it
   * may.
   */
  private static String bracesEncodedInQuery(String text) {
    int question = text.indexOf('?');
    if (question < 0) {
      return text;
    }
    return text.substring(0, question)
        + text.substring(question).replace("{", "%7B").replace("}", "%7D");
  }

  private static Map<String, String> parseQuery(String text, @Nullable String rawQuery) {
    Map<String, String> result = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return result;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (result.put(name, value) != null) {
        throw new LockConfigurationException(
            "Provider URL '" + redact(text) + "' gives parameter '" + name + "' twice");
      }
    }
    return result;
  }

  private static String decode(String part) {
    // Percent-decoding only: a '+' is itself (a base64 secret holds some), not a form's space.
    return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /**
   * The scheme in lower case, such as {@code tcp}.
   *
   * @return the scheme in lower case, such as {@code tcp}
   */
  public String scheme() {
    return uri.getScheme().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The URL with any password or secret parameter masked, for messages and logs.
   *
   * @return the URL with any password or secret parameter masked, for messages and logs
   */
  public String redacted() {
    return redact(text);
  }

  /**
   * Masks any password ({@code //user:password@host}, a ZooKeeper {@code digest=user:password}) or
   * secret parameter ({@code secret=}, {@code password=}, {@code token=}) in a URL or a text that
   * contains one, such as a provider's description.
   *
   * @param text a URL
   * @return the URL, masked
   */
  public static String redact(String text) {
    // Up to the last '@' of the word: a password with an unencoded '/', '?' or '@' is masked too.
    return text.replaceAll("(//[^:/@\\s]*:)\\S*@", "$1****@")
        // One holding a space, which the URL parser refuses: up to the authority's '@'.
        .replaceAll("(//[^:/@\\s]*:)[^/?#@]*@", "$1****@")
        .replaceAll("(?i)((?:secret|password|token)=)[^&]*", "$1****")
        .replaceAll("(?i)(digest=[^:&]*:)[^&]*", "$1****");
  }

  /**
   * The host; fails when the URL has none.
   *
   * @return the host
   */
  public String host() {
    String host = uri.getHost();
    if (host == null || host.isEmpty()) {
      // An authority that is not host[:port] (a port that is not a number, a host name with '_')
      // leaves no host; it is named without its user info, which may hold a password.
      String authority = uri.getRawAuthority();
      String hostPort =
          authority == null ? "" : authority.substring(authority.lastIndexOf('@') + 1);
      throw error(
          (hostPort.isEmpty() || hostPort.startsWith(":")
                  ? "has no host"
                  : "has an invalid host or port in '"
                      + hostPort
                      + "' (a host name holds letters, digits, '-' and '.')")
              + "; expected "
              + scheme()
              + "://HOST:PORT");
    }
    return host;
  }

  /**
   * The port, or {@code defaultPort} when the URL gives none.
   *
   * @param defaultPort the port when the URL gives none
   * @return the port
   * @throws LockConfigurationException when the port is outside 1 to 65535
   */
  public int port(int defaultPort) {
    int port = uri.getPort();
    if (port >= 0) {
      if (port < 1 || port > 65_535) {
        throw error("has port " + port + "; expected 1 to 65535");
      }
      return port;
    }
    if (uri.getRawAuthority() != null && uri.getHost() == null) {
      throw error("has an invalid host or port in '" + uri.getRawAuthority() + "'");
    }
    return defaultPort;
  }

  /**
   * The part after the scheme of an opaque URL such as {@code mem:orders}, without its query; empty
   * for a hierarchical URL.
   *
   * @return the part after the scheme of an opaque URL such as {@code mem:orders}, without its
   *     query; empty for a hierarchical URL
   */
  public String opaquePart() {
    if (!uri.isOpaque()) {
      return "";
    }
    String ssp = uri.getSchemeSpecificPart();
    int question = ssp.indexOf('?');
    return question < 0 ? ssp : ssp.substring(0, question);
  }

  /**
   * The path, decoded; empty when the URL has none.
   *
   * @return the path, decoded; empty when the URL has none
   */
  public String path() {
    String path = uri.getPath();
    return path == null ? "" : path;
  }

  /**
   * Fails when the URL has a parameter outside {@code allowed}, listing the allowed ones.
   *
   * @param allowed the parameters this provider reads
   * @return this URL
   */
  public ProviderUrl requireOnly(Set<String> allowed) {
    for (String name : parameters.keySet()) {
      if (!allowed.contains(name)) {
        // Its value is never shown: it may be a secret whose name is misspelt.
        String shown = text.replaceAll("([?&]" + Pattern.quote(name) + "=)[^&#]*", "$1****");
        throw new LockConfigurationException(
            "Provider URL '"
                + redact(shown)
                + "' has unknown parameter '"
                + name
                + "'; "
                + (allowed.isEmpty()
                    ? "this scheme takes no parameters"
                    : "allowed: " + new TreeSet<>(allowed)));
      }
    }
    return this;
  }

  /**
   * A parameter's value, or {@code null} when absent.
   *
   * @param name the parameter's name
   * @return its value, or null
   */
  public @Nullable String parameter(String name) {
    return parameters.get(name);
  }

  /**
   * A duration parameter such as {@code skew=2s}, or the default when absent.
   *
   * @param name the parameter's name
   * @param defaultValue the value when absent
   * @return the duration
   */
  public Duration durationParameter(String name, Duration defaultValue) {
    String value = parameters.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw error("parameter '" + name + "': " + e.getMessage());
    }
  }

  /**
   * An integer parameter, or the default when absent.
   *
   * @param name the parameter's name
   * @param defaultValue the value when absent
   * @return the integer
   */
  public int intParameter(String name, int defaultValue) {
    String value = parameters.get(name);
    if (value == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(value.strip());
    } catch (NumberFormatException e) {
      throw error("parameter '" + name + "' is not a whole number: '" + value + "'");
    }
  }

  /**
   * A boolean parameter ({@code true}/{@code false}), or the default when absent.
   *
   * @param name the parameter's name
   * @param defaultValue the value when absent
   * @return the boolean
   */
  public boolean booleanParameter(String name, boolean defaultValue) {
    String value = parameters.get(name);
    if (value == null) {
      return defaultValue;
    }
    return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "1", "" -> true;
      case "false", "no", "0" -> false;
      default -> throw error("parameter '" + name + "' is not true or false: '" + value + "'");
    };
  }

  /**
   * An error about this URL: {@code Provider URL '<url>' <what>}.
   *
   * @param what what is wrong
   * @return the error, to throw
   */
  public LockConfigurationException error(String what) {
    return new LockConfigurationException("Provider URL '" + redacted() + "' " + what);
  }

  @Override
  public String toString() {
    return redacted();
  }
}
