package dev.locksmith.spring.aot;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.internal.KeyLanguage;
import dev.locksmith.core.internal.KeyRoot;
import dev.locksmith.core.spi.LockProviderFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * The hints every application using Locksmith needs, whatever its beans: registered for Spring AOT
 * in {@code META-INF/spring/aot.factories}, so a native image built by Spring Boot's AOT plugins
 * gets them without configuration.
 *
 * <ul>
 *   <li>{@link KeyRoot}, the root object of SpEL keys ({@code #root.methodName}), whose public
 *       getters SpEL calls through reflection;
 *   <li>the {@code META-INF/services} files of {@link LockProviderFactory} and {@link KeyLanguage},
 *       and a public no-argument constructor of every implementation they list on the build's class
 *       path ({@code mem:}, {@code file:}, {@code tcp://}, {@code redis://}, SpEL, ...);
 *   <li>{@code locksmith.properties} (read by the engine's settings) and the {@code
 *       META-INF/locksmith/locked-methods} index (read by the AspectJ mode's weaving check);
 *   <li>{@link DistributedLock} and {@link OnBusy}, read from annotated methods;
 *   <li>Reactor's {@code Mono} and {@code Flux}, looked up by name to tell reactive results.
 * </ul>
 *
 * <p>The methods of the application's own annotated beans are registered per bean by {@link
 * LockedBeanAotProcessor}.
 */
public final class LocksmithRuntimeHints implements RuntimeHintsRegistrar {
  /** The service file listing lock provider factories. */
  static final String PROVIDER_FACTORIES =
      "META-INF/services/" + LockProviderFactory.class.getName();

  /** The service file listing key languages. */
  static final String KEY_LANGUAGES = "META-INF/services/" + KeyLanguage.class.getName();

  /** The engine's optional settings file. */
  static final String SETTINGS = "locksmith.properties";

  /** The index of annotated methods written by the annotation processor. */
  static final String LOCKED_METHODS_INDEX = "META-INF/locksmith/locked-methods";

  private static final String[] REACTIVE_TYPES = {
    "reactor.core.publisher.Mono", "reactor.core.publisher.Flux"
  };

  /** Created by Spring AOT through {@code aot.factories}. */
  public LocksmithRuntimeHints() {}

  /**
   * Registers the hints.
   *
   * @throws UncheckedIOException when a service file on the class path cannot be read
   */
  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    ClassLoader loader = classLoader != null ? classLoader : ClassUtils.getDefaultClassLoader();
    hints
        .reflection()
        .registerType(KeyRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS)
        .registerType(DistributedLock.class, MemberCategory.INVOKE_PUBLIC_METHODS)
        .registerType(OnBusy.class, MemberCategory.INVOKE_PUBLIC_METHODS);
    hints
        .resources()
        .registerPattern(PROVIDER_FACTORIES)
        .registerPattern(KEY_LANGUAGES)
        .registerPattern(SETTINGS)
        .registerPattern(LOCKED_METHODS_INDEX);
    for (String service : new String[] {PROVIDER_FACTORIES, KEY_LANGUAGES}) {
      for (String implementation : implementations(service, loader)) {
        hints
            .reflection()
            .registerType(
                TypeReference.of(implementation), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
      }
    }
    for (String reactive : REACTIVE_TYPES) {
      if (ClassUtils.isPresent(reactive, loader)) {
        hints.reflection().registerType(TypeReference.of(reactive));
      }
    }
  }

  /** The class names listed in every copy of a service file on the class path. */
  static Set<String> implementations(String serviceFile, @Nullable ClassLoader loader) {
    Set<String> names = new LinkedHashSet<>();
    try {
      Enumeration<URL> files =
          loader != null
              ? loader.getResources(serviceFile)
              : ClassLoader.getSystemResources(serviceFile);
      while (files.hasMoreElements()) {
        URL file = files.nextElement();
        try (BufferedReader reader =
            new BufferedReader(new InputStreamReader(file.openStream(), StandardCharsets.UTF_8))) {
          reader
              .lines()
              .map(line -> line.replaceFirst("#.*", "").strip())
              .filter(line -> !line.isEmpty())
              .forEach(names::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + serviceFile + " on the class path: " + e, e);
    }
    return names;
  }
}
