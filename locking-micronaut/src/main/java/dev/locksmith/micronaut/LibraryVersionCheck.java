package dev.locksmith.micronaut;

import io.micronaut.context.annotation.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns once at start-up when a library Locksmith is built with is older on the class path than at
 * build time: a BOM imported earlier in {@code dependencyManagement} (the Micronaut platform BOM,
 * or {@code micronaut-parent}'s) wins over later ones and silently pins Spring Expression, Netty
 * and Micrometer below Locksmith's versions. The build versions come from {@code
 * built-with.properties}, filled in from the build's properties; the runtime versions from each
 * library's jar manifest. A library that is absent, or whose version cannot be read, is not
 * checked.
 */
@Context
final class LibraryVersionCheck {
  static final String RESOURCE = "built-with.properties";
  private static final Logger LOG = LoggerFactory.getLogger(LibraryVersionCheck.class);

  /** The libraries checked: their key in the resource, a class of theirs and their BOM. */
  static final List<Library> LIBRARIES =
      List.of(
          new Library(
              "spring-expression",
              "org.springframework.expression.ExpressionParser",
              "org.springframework:spring-framework-bom",
              null),
          new Library("netty", "io.netty.util.Version", "io.netty:netty-bom", "netty.version"),
          new Library(
              "micrometer",
              "io.micrometer.core.instrument.MeterRegistry",
              "io.micrometer:micrometer-bom",
              "micrometer.version"));

  LibraryVersionCheck() {
    String warning = warning(downgrades(builtWith(), LibraryVersionCheck::runtimeVersion));
    if (warning != null) {
      LOG.warn(warning);
    }
  }

  /**
   * A library Locksmith checks.
   *
   * @param name its key in the resource and its name in the warning
   * @param marker a class in its jar, whose manifest gives the runtime version
   * @param bom the coordinates of the BOM that pins it, without version
   * @param parentProperty the property of {@code micronaut-parent} (inherited from the platform
   *     BOM, whose entries for the library use it) that sets its version, or {@code null} when
   *     importing the BOM first is enough there too
   */
  record Library(String name, String marker, String bom, @Nullable String parentProperty) {}

  /**
   * A library on the class path older than the one Locksmith was built with.
   *
   * @param library the library
   * @param runtime its version on the class path
   * @param built the version Locksmith was built with
   */
  record Downgrade(Library library, String runtime, String built) {}

  /** The build versions from the resource, by library name. */
  static Map<String, String> builtWith() {
    Properties properties = new Properties();
    try (InputStream in = LibraryVersionCheck.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        LOG.debug(
            "No {} next to {}; library versions not checked", RESOURCE, LibraryVersionCheck.class);
        return Map.of();
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
    Map<String, String> versions = new TreeMap<>();
    properties.forEach((key, value) -> versions.put(key.toString(), value.toString().strip()));
    return versions;
  }

  /** The implementation version of the jar holding the class, or {@code null}. */
  static @Nullable String runtimeVersion(String className) {
    try {
      Class<?> type = Class.forName(className, false, LibraryVersionCheck.class.getClassLoader());
      Package pkg = type.getPackage();
      return pkg == null ? null : pkg.getImplementationVersion();
    } catch (ClassNotFoundException | LinkageError absent) {
      return null;
    }
  }

  /**
   * The checked libraries whose runtime version is lower than their build version.
   *
   * @param builtWith build versions by library name
   * @param runtime the runtime version of a library's marker class, {@code null} when unknown
   */
  static List<Downgrade> downgrades(
      Map<String, String> builtWith, Function<String, @Nullable String> runtime) {
    List<Downgrade> downgrades = new ArrayList<>();
    for (Library library : LIBRARIES) {
      String built = builtWith.get(library.name());
      String found = runtime.apply(library.marker());
      if (built != null && !built.startsWith("${") && found != null && compare(found, built) < 0) {
        downgrades.add(new Downgrade(library, found, built));
      }
    }
    return downgrades;
  }

  /** The one warning naming every downgraded library and the fix, or {@code null} for none. */
  static @Nullable String warning(List<Downgrade> downgrades) {
    if (downgrades.isEmpty()) {
      return null;
    }
    return "Locksmith is built with newer versions of libraries than the class path holds: "
        + downgrades.stream()
            .map(d -> d.library().name() + " " + d.runtime() + " (built with " + d.built() + ")")
            .collect(Collectors.joining(", "))
        + ". A BOM imported earlier in dependencyManagement, such as the Micronaut platform BOM"
        + " or micronaut-parent's, pins them lower. Import "
        + downgrades.stream()
            .map(d -> d.library().bom() + ":" + d.built())
            .collect(Collectors.joining(", "))
        + " (type pom, scope import) before the Micronaut BOM"
        + parentProperties(downgrades)
        + "; see 'BOM order' in the locking-micronaut README";
  }

  private static String parentProperties(List<Downgrade> downgrades) {
    String properties =
        downgrades.stream()
            .filter(d -> d.library().parentProperty() != null)
            .map(d -> d.library().parentProperty() + "=" + d.built())
            .collect(Collectors.joining(", "));
    return properties.isEmpty()
        ? ""
        : "; with micronaut-parent as the parent, also set the properties " + properties;
  }

  /**
   * Compares two versions by their numeric parts ({@code 4.2.9.Final} before {@code 4.2.15.Final},
   * {@code 6.2.11} before {@code 7.0.8}); qualifiers after the numbers are ignored and a missing
   * part counts as 0.
   */
  static int compare(String left, String right) {
    List<Long> a = numbers(left);
    List<Long> b = numbers(right);
    for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
      long x = i < a.size() ? a.get(i) : 0;
      long y = i < b.size() ? b.get(i) : 0;
      if (x != y) {
        return Long.compare(x, y);
      }
    }
    return 0;
  }

  private static List<Long> numbers(String version) {
    List<Long> numbers = new ArrayList<>();
    for (String part : version.strip().split("[.\\-_]")) {
      if (part.isEmpty() || !part.chars().allMatch(Character::isDigit) || part.length() > 18) {
        break; // the first qualifier ends the numeric part
      }
      numbers.add(Long.parseLong(part));
    }
    return numbers;
  }
}
