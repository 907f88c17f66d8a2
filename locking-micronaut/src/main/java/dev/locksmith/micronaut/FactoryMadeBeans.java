package dev.locksmith.micronaut;

import dev.locksmith.core.Locksmith;
import io.micronaut.aop.Intercepted;
import io.micronaut.context.BeanContext;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.inject.BeanDefinition;
import jakarta.inject.Singleton;
import java.lang.reflect.Method;
import java.util.List;

/**
 * Refuses a bean that a {@code @Factory} method declares as an interface or a supertype while the
 * object it returns has {@code @DistributedLock} methods: Micronaut does not advise a bean a
 * factory returns, and the start-up check, which sees only the declared type, finds no locked
 * method on it. The check runs when the bean is made (at start-up for the beans made then), before
 * any of its methods can run unlocked.
 */
@Singleton
@Requires(condition = OnOffSwitch.LockingEnabled.class)
final class FactoryMadeBeans implements BeanCreatedEventListener<Object> {
  private static final ClassValue<List<Method>> ANNOTATED =
      new ClassValue<>() {
        @Override
        protected List<Method> computeValue(Class<?> type) {
          return LockedMethods.annotatedMethods(type);
        }
      };

  private final BeanContext beanContext;

  FactoryMadeBeans(BeanContext beanContext) {
    this.beanContext = beanContext;
  }

  @Override
  public Object onCreated(BeanCreatedEvent<Object> event) {
    Object bean = event.getBean();
    BeanDefinition<Object> definition = event.getBeanDefinition();
    // A bean of the declared class itself is checked at start-up from its definition.
    if (bean instanceof Intercepted
        || bean.getClass() == definition.getBeanType()
        || definition.hasStereotype(Replaces.class)) {
      return bean;
    }
    List<Method> annotated = ANNOTATED.get(bean.getClass());
    if (!annotated.isEmpty()) {
      if (!beanContext.isRunning()) {
        // The start-up fails, and Micronaut closes none of the beans made so far: an engine made
        // already (its threads, the providers it made from URLs) is closed now.
        beanContext.getActiveBeanRegistrations(Locksmith.class).forEach(r -> r.bean().close());
      }
      throw LockValidation.notIntercepted(
          definition,
          annotated.get(0),
          "the bean is made by a @Factory method declared to return "
              + definition.getBeanType().getName()
              + ", and Micronaut does not advise a bean a factory returns; declare the bean"
              + " class with @Singleton (or another scope) and inject it instead of making it in"
              + " a factory");
    }
    return bean;
  }
}
