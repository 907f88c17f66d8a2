package dev.locksmith.aspectj;

import dev.locksmith.annotation.processing.LockedMethodIndexer;
import dev.locksmith.core.LockConfigurationException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks that every {@code @DistributedLock} method the compiler listed in {@value
 * LockedMethodIndexer#INDEX} (one index per class path entry, written by {@link
 * LockedMethodIndexer}) is intercepted by the aspect. Each listed class is loaded without being
 * initialised, so that a load-time weaver weaves it first, and checked as {@link Weaving} does.
 */
final class WeavingVerifier {
  private static final Logger LOG = LoggerFactory.getLogger(WeavingVerifier.class);

  private WeavingVerifier() {}

  /** The loaders to look in: the thread's context class loader, then this module's. */
  static List<ClassLoader> defaultLoaders() {
    Set<ClassLoader> loaders = new LinkedHashSet<>();
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    if (context != null) {
      loaders.add(context);
    }
    ClassLoader own = WeavingVerifier.class.getClassLoader();
    if (own != null) {
      loaders.add(own);
    }
    return List.copyOf(loaders);
  }

  /**
   * Checks every method listed in an index that the loaders see.
   *
   * @return how many listed methods were checked
   * @throws LockConfigurationException listing every method that would run unlocked
   */
  static int verify(List<ClassLoader> loaders) {
    Map<URL, ClassLoader> indexes = indexes(loaders);
    if (indexes.isEmpty()) {
      LOG.warn(
          "No {} on the class path: weaving of @DistributedLock methods cannot be verified. Compile"
              + " with dev.locksmith:locksmith-annotations as an annotation processor (on JDK 23"
              + " and later: annotationProcessorPaths of the maven-compiler-plugin, or -proc:full)",
          LockedMethodIndexer.INDEX);
      return 0;
    }
    Map<String, Listed> classes = new LinkedHashMap<>();
    for (Map.Entry<URL, ClassLoader> index : indexes.entrySet()) {
      read(index.getKey(), index.getValue(), classes);
    }
    Set<Weaving.Problem> problems = new LinkedHashSet<>();
    int methods = 0;
    for (Map.Entry<String, Listed> entry : classes.entrySet()) {
      Listed listed = entry.getValue();
      Class<?> type;
      try {
        type = Class.forName(entry.getKey(), false, listed.loader());
      } catch (ClassNotFoundException | LinkageError e) {
        // A class that cannot be loaded cannot run either: nothing runs unlocked.
        LOG.warn(
            "{} lists {}, which cannot be loaded here, so its @DistributedLock methods cannot run:"
                + " {}",
            listed.index(),
            entry.getKey(),
            e.toString());
        continue;
      }
      problems.addAll(Weaving.problems(type));
      methods += listed.methods();
    }
    if (!problems.isEmpty()) {
      throw new LockConfigurationException(
          "Weaving check failed for the @DistributedLock methods the compiler listed in "
              + LockedMethodIndexer.INDEX
              + ":\n"
              + Weaving.describe(List.copyOf(problems)));
    }
    LOG.info(
        "Weaving verified: {} @DistributedLock methods in {} classes listed by {} index(es)",
        methods,
        classes.size(),
        indexes.size());
    return methods;
  }

  /** Every index the loaders see, with the first loader that saw it. */
  private static Map<URL, ClassLoader> indexes(List<ClassLoader> loaders) {
    Map<URL, ClassLoader> indexes = new LinkedHashMap<>();
    for (ClassLoader loader : loaders) {
      try {
        Enumeration<URL> found = loader.getResources(LockedMethodIndexer.INDEX);
        while (found.hasMoreElements()) {
          indexes.putIfAbsent(found.nextElement(), loader);
        }
      } catch (IOException e) {
        throw new LockConfigurationException(
            "Cannot list " + LockedMethodIndexer.INDEX + " on the class path: " + e, e);
      }
    }
    return indexes;
  }

  private static void read(URL index, ClassLoader loader, Map<String, Listed> into) {
    List<String> lines = new ArrayList<>();
    try {
      URLConnection connection = index.openConnection();
      connection.setUseCaches(false);
      try (InputStream in = connection.getInputStream();
          BufferedReader reader =
              new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          lines.add(line);
        }
      }
    } catch (IOException e) {
      throw new LockConfigurationException("Cannot read " + index + ": " + e, e);
    }
    for (String line : lines) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      String className = trimmed.split(" ", 2)[0];
      into.computeIfAbsent(className, name -> new Listed(index, loader, new LinkedHashSet<>()))
          .lines()
          .add(trimmed);
    }
  }

  /** A class named by an index, the lines that list its methods, and where to load it from. */
  private record Listed(URL index, ClassLoader loader, Set<String> lines) {
    int methods() {
      return lines.size();
    }
  }
}
