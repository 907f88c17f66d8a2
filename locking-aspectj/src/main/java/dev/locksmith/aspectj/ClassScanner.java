package dev.locksmith.aspectj;

import dev.locksmith.core.LockConfigurationException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/** Finds the classes of a package and its sub-packages in class path directories and jars. */
final class ClassScanner {
  private ClassScanner() {}

  /**
   * Loads, without initializing, every class under the package.
   *
   * @throws LockConfigurationException when the package has no classes or a class cannot load
   */
  static List<Class<?>> scan(ClassLoader loader, String packageName) {
    String path = packageName.replace('.', '/');
    TreeSet<String> names = new TreeSet<>();
    try {
      Enumeration<URL> roots = loader.getResources(path);
      while (roots.hasMoreElements()) {
        URL root = roots.nextElement();
        switch (root.getProtocol()) {
          case "file" -> fromDirectory(Paths.get(root.toURI()), packageName, names);
          case "jar" -> fromJar(root, path, names);
          default -> {
            // Other class path entries (such as jrt:) hold no application classes.
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot scan package " + packageName, e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Cannot scan package " + packageName, e);
    }
    if (names.isEmpty()) {
      throw new LockConfigurationException(
          "No classes found in package '"
              + packageName
              + "' to validate; check its name (the classes of a jar built without directory"
              + " entries cannot be found by package: name them with validate(Class...))");
    }
    List<Class<?>> classes = new ArrayList<>(names.size());
    for (String name : names) {
      try {
        classes.add(Class.forName(name, false, loader));
      } catch (ClassNotFoundException | LinkageError e) {
        throw new LockConfigurationException(
            "Cannot load " + name + " to validate its @DistributedLock methods: " + e, e);
      }
    }
    return classes;
  }

  private static void fromDirectory(Path dir, String packageName, TreeSet<String> into)
      throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .filter(file -> isClassFile(file.getFileName().toString()))
          .forEach(
              file -> {
                String relative =
                    dir.relativize(file)
                        .toString()
                        .replace(file.getFileSystem().getSeparator(), ".");
                into.add(packageName + "." + relative.substring(0, relative.length() - 6));
              });
    }
  }

  private static void fromJar(URL root, String path, TreeSet<String> into) throws IOException {
    JarURLConnection connection = (JarURLConnection) root.openConnection();
    connection.setUseCaches(false);
    try (JarFile jar = connection.getJarFile()) {
      Enumeration<JarEntry> entries = jar.entries();
      while (entries.hasMoreElements()) {
        String name = entries.nextElement().getName();
        int slash = name.lastIndexOf('/');
        if (name.startsWith(path + "/") && isClassFile(name.substring(slash + 1))) {
          into.add(name.substring(0, name.length() - 6).replace('/', '.'));
        }
      }
    }
  }

  private static boolean isClassFile(String fileName) {
    return fileName.endsWith(".class")
        && !fileName.equals("module-info.class")
        && !fileName.equals("package-info.class");
  }
}
