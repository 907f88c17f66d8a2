package dev.locksmith.spring.boot;

import dev.locksmith.spring.LockingInfrastructure;
import dev.locksmith.spring.LockingMode;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the interception infrastructure with {@code locksmith.mode} and {@code
 * locksmith.order}, unless {@code @EnableDistributedLocking} already did.
 */
final class BootLockingRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {
  private @Nullable Environment environment;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void registerBeanDefinitions(
      AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    Binder binder = Binder.get(Objects.requireNonNull(environment));
    LockingMode mode = binder.bind("locksmith.mode", LockingMode.class).orElse(LockingMode.PROXY);
    int order =
        binder.bind("locksmith.order", Integer.class).orElse(LockingInfrastructure.DEFAULT_ORDER);
    boolean proxyTargetClass =
        binder.bind("spring.aop.proxy-target-class", Boolean.class).orElse(true);
    LockingInfrastructure.register(registry, mode, order, proxyTargetClass);
  }
}
