package dev.locksmith.spring.woven;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The application context of the {@code locksmith.mode=aspectj} tests, defined once so that they
 * share one cached context.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@SpringBootTest(
    classes = AspectJModeTest.App.class,
    properties = {
      "locksmith.url=mem:aspectj-mode",
      "locksmith.mode=aspectj",
      "ledger.lock-name=ledger"
    })
@interface AspectJModeBootTest {}
