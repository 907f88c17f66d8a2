package dev.locksmith.jdbc;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.spi.ProviderUrl;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code jdbc:} provider URL split into the driver's URL and the provider's parameters: {@code
 * table}, {@code createTable}, {@code poolSize}, {@code timeout}, {@code maxPoll} and {@code
 * retention} are taken out; every other parameter goes to the driver unchanged.
 *
 * @param driverUrl the URL handed to the driver
 * @param dialect the database's dialect, from the sub-protocol
 * @param settings the provider's settings
 * @param poolSize the size of the provider's own pool
 */
record JdbcUrl(String driverUrl, Dialect dialect, JdbcSettings settings, int poolSize) {
  static final Set<String> PROVIDER_PARAMETERS =
      Set.of("table", "createTable", "poolSize", "timeout", "maxPoll", "retention");
  static final int DEFAULT_POOL_SIZE = 4;

  static JdbcUrl parse(ProviderUrl url) {
    String part = url.opaquePart();
    int colon = part.indexOf(':');
    if (colon <= 0) {
      throw url.error(
          "names no database; expected jdbc:postgresql://HOST/DB, jdbc:mariadb://HOST/DB,"
              + " jdbc:mysql://HOST/DB or jdbc:h2:...");
    }
    String database = part.substring(0, colon);
    Dialect dialect =
        Dialect.of(database)
            .orElseThrow(
                () ->
                    url.error(
                        "names database '"
                            + database
                            + "', which is not supported; supported: "
                            + Dialect.SUPPORTED));
    refuseMiscased(url);
    if (database.equals("h2")) {
      refuseH2SettingsAfterQuestionMark(url);
    }
    int poolSize = url.intParameter("poolSize", DEFAULT_POOL_SIZE);
    if (poolSize < 1 || poolSize > 64) {
      throw url.error("parameter 'poolSize' must be between 1 and 64, was " + poolSize);
    }
    JdbcSettings defaults = JdbcSettings.defaults();
    String table = url.parameter("table");
    Duration timeout = url.durationParameter("timeout", defaults.timeout());
    Duration maxPoll = url.durationParameter("maxPoll", defaults.maxPoll());
    Duration retention = url.durationParameter("retention", defaults.retention());
    JdbcSettings settings;
    try {
      settings =
          new JdbcSettings(
              table == null ? defaults.table() : table.strip(),
              url.booleanParameter("createTable", true),
              timeout,
              maxPoll,
              retention);
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      throw url.error("parameter '" + message.split(" ", 2)[0] + "': " + message);
    }
    String driverUrl = driverUrl(url.text());
    refuseDroppedH2Memory(url, driverUrl);
    try {
      DriverManager.getDriver(driverUrl);
    } catch (SQLException e) {
      String driver = DRIVERS.get(database);
      if (driver != null
          && DriverManager.drivers().anyMatch(d -> d.getClass().getName().equals(driver))) {
        throw url.error(
            "is refused by the "
                + database
                + " driver on the class path ("
                + driver
                + "), so it is not written as that driver expects, such as jdbc:"
                + database
                + "://HOST[:PORT]/DB");
      }
      throw new LockConfigurationException(
          "Provider URL '"
              + url.redacted()
              + "': no JDBC driver for "
              + database
              + " on the class path ("
              + SqlFailures.reason(e)
              + ")"
              + mariaDbHint(database, driverUrl, url.redacted()),
          e);
    }
    return new JdbcUrl(driverUrl, dialect, settings, poolSize);
  }

  /**
   * For a {@code jdbc:mysql:} URL with only MariaDB's driver on the class path (as in the command
   * line's jar): how to write the URL for it, which serves MySQL too; else nothing.
   */
  private static String mariaDbHint(String database, String driverUrl, String redacted) {
    String mysql = "jdbc:mysql:";
    String mariaDb = "jdbc:mariadb:";
    if (!database.equals("mysql") || !driverUrl.startsWith(mysql)) {
      return "";
    }
    try {
      DriverManager.getDriver(mariaDb + driverUrl.substring(mysql.length()));
    } catch (SQLException e) {
      return "";
    }
    return "; the MariaDB driver on the class path also serves MySQL: write the URL as "
        + mariaDb
        + redacted.substring(Math.min(mysql.length(), redacted.length()));
  }

  /**
   * Refuses a provider parameter written in another case ({@code Table}, {@code createtable}),
   * another style ({@code pool-size}, {@code max_poll}) or with one letter wrong, missing, extra or
   * swapped ({@code tabel}): it would go to the driver, which ignores what it does not know, and
   * the provider would use its default without a word.
   */
  private static void refuseMiscased(ProviderUrl url) {
    String text = url.text();
    int question = text.indexOf('?');
    if (question < 0) {
      return;
    }
    for (String pair : text.substring(question + 1).split("&")) {
      String name = name(pair);
      for (String known : PROVIDER_PARAMETERS) {
        if (!known.equals(name) && nearMiss(name, known)) {
          throw url.error(
              "has parameter '"
                  + name
                  + "'; the provider's is '"
                  + known
                  + "' (names are exact, case included, and the driver would be given this"
                  + " one)");
        }
      }
    }
  }

  /**
   * Whether {@code name} is {@code known} written another way: the same letters in any case, with
   * {@code -} or {@code _} between words, or at most one letter wrong, missing, extra or swapped
   * with its neighbour.
   */
  static boolean nearMiss(String name, String known) {
    String a = folded(name);
    String b = folded(known);
    return a.equals(b) || (a.length() >= 4 && editsAtMostOne(a, b));
  }

  private static String folded(String name) {
    return name.replace("-", "").replace("_", "").toLowerCase(java.util.Locale.ROOT);
  }

  /** One substitution, insertion, deletion or swap of neighbours, at most. */
  private static boolean editsAtMostOne(String a, String b) {
    if (Math.abs(a.length() - b.length()) > 1) {
      return false;
    }
    int i = 0;
    while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    if (a.length() == b.length()) {
      return a.substring(i + Math.min(1, a.length() - i))
              .equals(b.substring(i + Math.min(1, b.length() - i)))
          || (i + 1 < a.length()
              && a.charAt(i) == b.charAt(i + 1)
              && a.charAt(i + 1) == b.charAt(i)
              && a.substring(i + 2).equals(b.substring(i + 2)));
    }
    return a.length() < b.length()
        ? a.substring(i).equals(b.substring(i + 1))
        : a.substring(i + 1).equals(b.substring(i));
  }

  /**
   * Refuses a driver setting after the {@code ?} of an H2 URL: H2 reads its settings after {@code
   * ;} only and takes the rest as the database's name ({@code locks?user=sa} names another
   * database, its file carrying what followed, password included).
   */
  private static void refuseH2SettingsAfterQuestionMark(ProviderUrl url) {
    String redacted = url.redacted();
    int question = redacted.indexOf('?');
    if (question < 0) {
      return;
    }
    List<String> settings = new ArrayList<>();
    List<String> providers = new ArrayList<>();
    for (String pair : redacted.substring(question + 1).split("&")) {
      if (!pair.isEmpty()) {
        (PROVIDER_PARAMETERS.contains(name(pair)) ? providers : settings).add(pair);
      }
    }
    if (settings.isEmpty()) {
      return;
    }
    String written =
        redacted.substring(0, question)
            + ";"
            + String.join(";", settings)
            + (providers.isEmpty() ? "" : "?" + String.join("&", providers));
    throw url.error(
        "has parameter '"
            + name(settings.get(0))
            + "' after '?', which H2 would read as part of the database's name: H2 takes its"
            + " settings after ';', the provider's after '?'; write "
            + written);
  }

  /** The driver class of each database, to tell a URL its driver refuses from a missing driver. */
  private static final Map<String, String> DRIVERS =
      Map.of(
          "postgresql", "org.postgresql.Driver",
          "mariadb", "org.mariadb.jdbc.Driver",
          "mysql", "com.mysql.cj.jdbc.Driver",
          "h2", "org.h2.Driver");

  /** An in-memory database of an H2 server, up to its name: jdbc:h2:tcp://host:port/mem:. */
  private static final Pattern SERVED_MEMORY =
      Pattern.compile("jdbc:h2:(?:tcp|ssl)://[^/;?]*/mem:", Pattern.CASE_INSENSITIVE);

  /**
   * Refuses an in-memory H2 database that is not kept, in this process or on an H2 server: H2 drops
   * one when its last connection closes, and a pool retiring its idle connection would drop every
   * lock held (another owner then takes them at once); an unnamed one is private to each
   * connection, so no two would share a lock.
   */
  private static void refuseDroppedH2Memory(ProviderUrl url, String driverUrl) {
    String memory = "jdbc:h2:mem:";
    Matcher served = SERVED_MEMORY.matcher(driverUrl);
    int name;
    if (driverUrl.regionMatches(true, 0, memory, 0, memory.length())) {
      name = memory.length();
    } else if (served.lookingAt()) {
      name = served.end();
    } else {
      return;
    }
    String[] parts = driverUrl.substring(name).split(";", -1);
    if (parts[0].isBlank()) {
      throw url.error(
          "names no in-memory database: H2 gives each connection a private one, so no two"
              + " connections would see the same lock; name it (jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1)");
    }
    for (String part : parts) {
      if (name(part).equalsIgnoreCase("DB_CLOSE_DELAY")
          && part.substring(part.indexOf('=') + 1).strip().equals("-1")) {
        return;
      }
    }
    // The URL to write, from the redacted text: a PASSWORD setting stays masked.
    String redacted = url.redacted();
    int question = redacted.indexOf('?');
    String[] written = (question < 0 ? redacted : redacted.substring(0, question)).split(";", -1);
    StringBuilder kept = new StringBuilder(written[0]);
    for (int i = 1; i < written.length; i++) {
      if (!written[i].isEmpty() && !name(written[i]).equalsIgnoreCase("DB_CLOSE_DELAY")) {
        kept.append(';').append(written[i]);
      }
    }
    throw url.error(
        "is an in-memory H2 database that H2 drops when its last connection closes, every lock"
            + " held with it (the pool retires connections); keep it with DB_CLOSE_DELAY=-1: "
            + kept
            + ";DB_CLOSE_DELAY=-1"
            + (question < 0 ? "" : redacted.substring(question)));
  }

  /** The decoded name of a {@code name=value} query pair. */
  private static String name(String pair) {
    int eq = pair.indexOf('=');
    return URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
  }

  /** The URL without the provider's parameters, the driver's kept as written. */
  static String driverUrl(String text) {
    int question = text.indexOf('?');
    if (question < 0) {
      return text;
    }
    List<String> kept = new ArrayList<>();
    for (String pair : text.substring(question + 1).split("&")) {
      if (!pair.isEmpty() && !PROVIDER_PARAMETERS.contains(name(pair))) {
        kept.add(pair);
      }
    }
    String base = text.substring(0, question);
    return kept.isEmpty() ? base : base + "?" + String.join("&", kept);
  }
}
