package dev.locksmith.micronaut;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithSettings;
import dev.locksmith.core.spi.LockProvider;
import io.micronaut.context.BeanContext;
import io.micronaut.context.BeanRegistration;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.env.Environment;
import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.annotation.AnnotationUtil;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the engine from the providers of the configuration ({@code locksmith.url}, {@code
 * locksmith.providers.<name>.url}) and the {@link LockProvider} beans of the context, with every
 * {@link LockListener} bean. It is created at start-up, so a bad URL fails the start.
 */
@Factory
final class LocksmithFactory {
  static final String REDISSON = "redisson";
  private static final Logger LOG = LoggerFactory.getLogger(LocksmithFactory.class);

  /** The engine; closing it stops renewal and closes the providers it created from URLs. */
  @Context
  @Bean(preDestroy = "close")
  Locksmith locksmith(
      Environment environment,
      BeanContext beanContext,
      List<LockListener> listeners,
      LockedMethods methods) {
    Map<String, LockProvider> beans = providerBeans(beanContext);
    ProviderSettings settings = ProviderSettings.read(environment);
    Locksmith.Builder builder =
        Locksmith.builder()
            .parameterNames(methods::parameterNames)
            .attributeResolver(value -> resolvePlaceholders(environment, value));
    listeners.forEach(builder::listener);
    beans.forEach(
        (name, provider) -> {
          if (name.isEmpty()) {
            builder.defaultProvider(provider);
          } else {
            builder.provider(name, provider);
          }
        });
    if (settings.defaultUrl() != null) {
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
              if (beans.containsKey(name)) {
                throw conflict(key, "provider '" + name + "'");
              }
              fromUrl(builder, key, new LocksmithSettings(null, Map.of(name, url)));
            });
    if (settings.defaultUrl() == null && !beans.containsKey("") && beans.containsKey(REDISSON)) {
      LOG.info("Locksmith: no locksmith.url; the application's RedissonClient is the default");
      builder.defaultProvider(beans.get(REDISSON));
    }
    return builder.build();
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

  private static void fromUrl(Locksmith.Builder builder, String key, LocksmithSettings url) {
    try {
      builder.settings(url);
    } catch (RuntimeException e) {
      builder.build().close(); // close the providers created so far
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
