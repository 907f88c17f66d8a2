package dev.locksmith.spring;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.Ordered;

/**
 * Registers the beans that make {@code @DistributedLock} work: the lock advisor (in {@link
 * LockingMode#PROXY} mode) or the AspectJ binding (in {@link LockingMode#ASPECTJ} mode), and the
 * start-up validator. Used by {@link EnableDistributedLocking} and the Boot auto-configuration; the
 * first registration wins.
 */
public final class LockingInfrastructure {

  /**
   * The default advisor order: ahead of {@code @Transactional} (whose advisor has {@link
   * Ordered#LOWEST_PRECEDENCE}), so that the lock is taken before the transaction begins and
   * released after it ends.
   */
  public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  /** The bean name of the lock advisor. */
  public static final String ADVISOR_BEAN_NAME = "dev.locksmith.spring.internalLockAdvisor";

  /** The bean name of the start-up validator, registered in every mode. */
  public static final String VALIDATOR_BEAN_NAME = "dev.locksmith.spring.internalLockValidator";

  /** The bean name of the AspectJ binding. */
  public static final String ASPECTJ_BINDER_BEAN_NAME =
      "dev.locksmith.spring.internalAspectJBinder";

  private LockingInfrastructure() {}

  /**
   * Whether the infrastructure is already registered in a registry.
   *
   * @param registry the registry
   * @return whether it is registered
   */
  public static boolean isRegistered(BeanDefinitionRegistry registry) {
    return registry.containsBeanDefinition(VALIDATOR_BEAN_NAME);
  }

  /**
   * Registers the infrastructure unless it is already there.
   *
   * @param registry where the beans are registered
   * @param mode how annotated methods are intercepted
   * @param order the advisor's order (proxy mode)
   * @param proxyTargetClass whether proxies subclass the target class (proxy mode)
   */
  public static void register(
      BeanDefinitionRegistry registry, LockingMode mode, int order, boolean proxyTargetClass) {
    if (isRegistered(registry)) {
      return;
    }
    RootBeanDefinition validator = infrastructure(LockValidator.class);
    validator.getConstructorArgumentValues().addIndexedArgumentValue(0, mode);
    registry.registerBeanDefinition(VALIDATOR_BEAN_NAME, validator);
    if (mode == LockingMode.ASPECTJ) {
      registry.registerBeanDefinition(
          ASPECTJ_BINDER_BEAN_NAME, infrastructure(AspectJBinder.class));
      return;
    }
    AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    if (proxyTargetClass) {
      AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
    }
    RootBeanDefinition advisor = infrastructure(LockAdvisor.class);
    advisor.getConstructorArgumentValues().addIndexedArgumentValue(0, order);
    registry.registerBeanDefinition(ADVISOR_BEAN_NAME, advisor);
  }

  private static RootBeanDefinition infrastructure(Class<?> type) {
    RootBeanDefinition definition = new RootBeanDefinition(type);
    definition.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
    return definition;
  }
}
