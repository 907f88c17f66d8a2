package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithBuilder;
import dev.locksmith.core.LocksmithSettings;
import dev.locksmith.core.spi.LockProvider;
import io.micronaut.context.BeanContext;
import io.micronaut.context.BeanRegistration;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.AnnotationUtil;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the engine from the providers of the configuration ({@code locksmith.url}, {@code
 * locksmith.providers.<name>.url}; {@code locksmith.url: jdbc} for the application's {@code
 * DataSource}, see {@link JdbcProviderFactory}) and the {@link LockProvider} beans of the context
 * (an application's {@code RedissonClient} or, after it, {@code CuratorFramework} is the default
 * when no URL is set), with every {@link LockListener} bean. It is created at start-up, so a bad
 * URL fails the start; an unreachable provider does not, unless {@code
 * locksmith.require-providers-at-startup=true}.
 */
@Factory
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class LocksmithFactory {
  static final String REDISSON = "redisson";

  /** The name of the provider over the application's {@code CuratorFramework}. */
  static final String CURATOR = "curator";

  /** The property that turns locking off when {@code false}. */
  static final String ENABLED = "locksmith.enabled";

  /** The property that makes an unreachable provider stop the start. */
  static final String REQUIRE_PROVIDERS = "locksmith.require-providers-at-startup";

  /** The property bounding how long closing waits for running locked calls. */
  static final String SHUTDOWN_TIMEOUT = "locksmith.shutdown-timeout";

  /** The property setting how often a provider that is down is probed. */
  static final String PROBE_INTERVAL = "locksmith.provider-probe-interval";

  private static final Logger LOG = LoggerFactory.getLogger(LocksmithFactory.class);

  /**
   * The engine; closing it waits for the locked calls still running (each releases its lease as it
   * ends), then stops renewal and closes the providers it created from URLs.
   *
   * <p>{@code providerBeans} is not read (the names come from the registrations) but declares the
   * dependency, so that the context destroys the engine before the provider beans, and those before
   * the clients they use (an application's {@code RedissonClient} or {@code CuratorFramework}).
   */
  @Context
  @Bean(preDestroy = "close")
  Locksmith locksmith(
      Environment environment,
      BeanContext beanContext,
      List<LockListener> listeners,
      List<LockProvider> providerBeans,
      LockedMethods methods) {
    ContextShutdown.refuseIfStopping(beanContext);
    Map<String, LockProvider> beans = providerBeans(beanContext);
    ProviderSettings settings = ProviderSettings.read(environment);
    LocksmithBuilder builder =
        Locksmith.builder()
            .parameterNames(methods::parameterNames)
            .attributeResolver(value -> resolvePlaceholders(environment, value))
            .requireProvidersAtStartup(OnOffSwitch.isOn(environment, REQUIRE_PROVIDERS, false));
    duration(environment, SHUTDOWN_TIMEOUT, builder::shutdownTimeout);
    duration(environment, PROBE_INTERVAL, builder::providerProbeInterval);
    listeners.forEach(builder::listener);
    beans.forEach(
        (name, provider) -> {
          if (name.isEmpty()) {
            builder.defaultProvider(provider);
          } else {
            builder.provider(name, provider);
          }
        });
    try {
      addProvidersFromSettings(builder, settings, beans, beanContext);
    } catch (RuntimeException e) {
      builder.discard(); // a bad URL or a conflict found after other providers were created
      throw e;
    }
    return builder.build();
  }

  /** The providers of {@code locksmith.url} and {@code locksmith.providers.*}, and defaults. */
  private static void addProvidersFromSettings(
      LocksmithBuilder builder,
      ProviderSettings settings,
      Map<String, LockProvider> beans,
      BeanContext beanContext) {
    if (DataSourceUrl.isUrl(settings.defaultUrl())) {
      if (beans.containsKey("")) {
        throw conflict(ProviderSettings.URL, "the default provider");
      }
      LockProvider overDataSource = beans.get(DataSourceUrl.NAME);
      if (overDataSource == null) {
        throw DataSourceUrl.missing(beanContext);
      }
      builder.defaultProvider(overDataSource);
    } else if (settings.defaultUrl() != null) {
      if (beans.containsKey("")) {
        throw conflict(ProviderSettings.URL, "the default provider");
      }
      fromUrl(
          builder, ProviderSettings.URL, new LocksmithSettings(settings.defaultUrl(), Map.of()));
    }
    settings
        .named()
        .forEach(
            (name, url) -> {
              String key = ProviderSettings.PROVIDERS + "." + name + ".url";
              if (DataSourceUrl.isUrl(url)) {
                throw DataSourceUrl.namedNotSupported(key);
              }
              if (beans.containsKey(name)) {
                throw conflict(key, "provider '" + name + "'");
              }
              fromUrl(builder, key, new LocksmithSettings(null, Map.of(name, url)));
            });
    if (settings.defaultUrl() == null && !beans.containsKey("")) {
      if (beans.containsKey(REDISSON)) {
        LOG.info("Locksmith: no locksmith.url; the application's RedissonClient is the default");
        builder.defaultProvider(beans.get(REDISSON));
      } else if (beans.containsKey(CURATOR)) {
        LOG.info("Locksmith: no locksmith.url; the application's CuratorFramework is the default");
        builder.defaultProvider(beans.get(CURATOR));
      }
    }
  }

  private static void duration(Environment environment, String key, Consumer<Duration> setter) {
    Optional<Duration> value =
        setting(environment, key, Duration.class, "a duration such as 10s, 500ms or PT10S");
    try {
      value.ifPresent(setter);
    } catch (IllegalArgumentException e) {
      throw new LockConfigurationException(key + ": " + e.getMessage(), e);
    }
  }

  /** A setting converted to its type; one that is set but does not convert stops the start. */
  private static <T> Optional<T> setting(
      Environment environment, String key, Class<T> type, String expected) {
    Optional<T> value;
    try {
      value = environment.get(key, type);
    } catch (ConfigurationException e) {
      throw new LockConfigurationException(key + ": " + e.getMessage(), e);
    }
    if (value.isEmpty() && environment.containsProperty(key)) {
      throw new LockConfigurationException(
          key + ": '" + environment.get(key, String.class).orElse("") + "' is not " + expected);
    }
    return value;
  }

  private static Map<String, LockProvider> providerBeans(BeanContext beanContext) {
    Map<String, LockProvider> byName = new TreeMap<>();
    Map<String, String> definedBy = new TreeMap<>();
    for (BeanRegistration<LockProvider> registration :
        beanContext.getBeanRegistrations(LockProvider.class)) {
      String name = registration.getBeanDefinition().stringValue(AnnotationUtil.NAMED).orElse("");
      if (name.equals("default")) {
        name = "";
      }
      String description = registration.getBeanDefinition().toString();
      String earlier = definedBy.putIfAbsent(name, description);
      if (earlier != null) {
        throw new LockConfigurationException(
            "Two LockProvider beans claim "
                + (name.isEmpty() ? "the default provider" : "provider '" + name + "'")
                + ": "
                + earlier
                + " and "
                + description
                + "; give them different @Named qualifiers");
      }
      byName.put(name, registration.getBean());
    }
    return byName;
  }

  private static void fromUrl(LocksmithBuilder builder, String key, LocksmithSettings url) {
    try {
      builder.settings(url);
    } catch (RuntimeException e) {
      throw new LockConfigurationException(key + ": " + e.getMessage(), e);
    }
  }

  private static LockConfigurationException conflict(String key, String what) {
    return new LockConfigurationException(
        key
            + " is set, but a LockProvider bean is also "
            + what
            + "; remove one of them, or give the bean another @Named qualifier");
  }

  private static String resolvePlaceholders(Environment environment, String value) {
    if (!value.contains("${")) {
      return value;
    }
    try {
      return environment.getPlaceholderResolver().resolveRequiredPlaceholders(value);
    } catch (ConfigurationException e) {
      throw new IllegalArgumentException("cannot be resolved: " + e.getMessage(), e);
    }
  }
}
