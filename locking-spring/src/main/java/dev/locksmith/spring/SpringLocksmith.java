package dev.locksmith.spring;

import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithBuilder;
import dev.locksmith.core.LocksmithSettings;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.spel.SpelKeyLanguage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Builds the engine of a Spring application: {@code ${...}} placeholders in every string attribute,
 * {@code @bean} references in keys, release after the joined transaction completes, the {@link
 * LockProvider} and {@link LockListener} beans, and provider URLs.
 */
public final class SpringLocksmith {
  private static final boolean TX_PRESENT =
      ClassUtils.isPresent(
          "org.springframework.transaction.support.TransactionSynchronizationManager",
          SpringLocksmith.class.getClassLoader());

  private SpringLocksmith() {}

  /**
   * Creates the engine.
   *
   * <p>Every {@link LockProvider} bean is a provider under its bean name; the only one, or else the
   * {@code @Primary} one, is also the default. Providers from the settings' URLs fill the names
   * (and the default) that no bean took.
   *
   * @param beanFactory the factory whose provider and listener beans are used
   * @param environment resolves {@code ${...}} placeholders
   * @param settings provider URLs
   * @return the engine
   */
  public static Locksmith create(
      ConfigurableListableBeanFactory beanFactory,
      Environment environment,
      LocksmithSettings settings) {
    return create(beanFactory, environment, settings, builder -> {});
  }

  /**
   * Creates the engine as {@link #create(ConfigurableListableBeanFactory, Environment,
   * LocksmithSettings)} does, with further settings applied to the builder before it builds.
   *
   * <p>Each {@link LockProvider} bean used is recorded as a dependency of the {@link Locksmith}
   * bean being created, so that the context closes the engine (which waits for running locked
   * calls) before it closes the providers and the clients they use, such as a {@code
   * RedissonClient}.
   *
   * @param beanFactory the factory whose provider and listener beans are used
   * @param environment resolves {@code ${...}} placeholders
   * @param settings provider URLs
   * @param customizer applies further engine settings, such as the shutdown timeout
   * @return the engine
   */
  public static Locksmith create(
      ConfigurableListableBeanFactory beanFactory,
      Environment environment,
      LocksmithSettings settings,
      Consumer<LocksmithBuilder> customizer) {
    LocksmithBuilder builder =
        Locksmith.builder()
            .attributeResolver(value -> resolve(environment, value))
            .keyLanguage(
                SpelKeyLanguage.withContext(
                    context -> context.setBeanResolver(new BeanFactoryResolver(beanFactory))));
    if (TX_PRESENT) {
      builder.releaseDeferral(new TransactionalReleaseDeferral());
    }
    addProviderBeans(builder, beanFactory);
    builder.settings(settings);
    try {
      beanFactory.getBeanProvider(LockListener.class).orderedStream().forEach(builder::listener);
      customizer.accept(builder);
    } catch (RuntimeException | Error e) {
      builder.discard(); // the providers made from URLs: a pool, a client, a session
      throw e;
    }
    return builder.build();
  }

  private static String resolve(Environment environment, String value) {
    try {
      return environment.resolveRequiredPlaceholders(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "has a placeholder that cannot be resolved: " + e.getMessage(), e);
    }
  }

  private static void addProviderBeans(
      LocksmithBuilder builder, ConfigurableListableBeanFactory beanFactory) {
    String[] names = beanFactory.getBeanNamesForType(LockProvider.class);
    List<String> engines = enginesInCreation(beanFactory);
    List<String> primary = new ArrayList<>();
    for (String name : names) {
      builder.provider(name, beanFactory.getBean(name, LockProvider.class));
      for (String engine : engines) {
        beanFactory.registerDependentBean(name, engine);
      }
      if (isPrimary(beanFactory, name)) {
        primary.add(name);
      }
    }
    if (names.length == 1) {
      builder.defaultProvider(beanFactory.getBean(names[0], LockProvider.class));
    } else if (primary.size() == 1) {
      builder.defaultProvider(beanFactory.getBean(primary.get(0), LockProvider.class));
    }
  }

  /** The names of the {@link Locksmith} beans being created now (the caller's, if it is a bean). */
  private static List<String> enginesInCreation(ConfigurableListableBeanFactory beanFactory) {
    List<String> engines = new ArrayList<>();
    for (String name : beanFactory.getBeanNamesForType(Locksmith.class, true, false)) {
      if (beanFactory.isCurrentlyInCreation(name)) {
        engines.add(name);
      }
    }
    return engines;
  }

  private static boolean isPrimary(ConfigurableListableBeanFactory beanFactory, String name) {
    try {
      return beanFactory.getMergedBeanDefinition(name).isPrimary();
    } catch (NoSuchBeanDefinitionException e) {
      return false;
    }
  }
}
