package dev.locksmith.spel;

import java.util.ArrayList;
import java.util.List;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The arguments a key concatenates ({@code #id} in {@code 'acct-' + #id}, {@code #order.customer()}
 * in {@code #order.customer() + '/' + #day}), checked after each evaluation: SpEL writes a null
 * there as the text {@code null}, which would make every call without the value share one lock.
 * Only operands that every evaluation reaches and that read an argument (a variable, then
 * properties or argument-less methods) are checked; a null the expression replaces itself ({@code
 * #id ?: 'none'}) is not one.
 */
final class ConcatenatedOperands {
  private static final ConcatenatedOperands NONE = new ConcatenatedOperands(List.of());

  /** One operand: its text for messages, and an expression that reads it on its own. */
  private record Operand(String text, Expression reader) {}

  private final List<Operand> operands;

  private ConcatenatedOperands(List<Operand> operands) {
    this.operands = operands;
  }

  static ConcatenatedOperands of(SpelExpression parsed, SpelExpressionParser parser) {
    List<Operand> found = new ArrayList<>();
    collect(parsed.getAST(), parser, found);
    return found.isEmpty() ? NONE : new ConcatenatedOperands(List.copyOf(found));
  }

  private static void collect(SpelNode node, SpelExpressionParser parser, List<Operand> into) {
    if (node instanceof OpPlus && node.getChildCount() == 2) {
      for (int i = 0; i < 2; i++) {
        SpelNode operand = node.getChild(i);
        if (readsAnArgument(operand)) {
          String text = operand.toStringAST();
          try {
            into.add(new Operand(text, parser.parseExpression(text)));
          } catch (ParseException e) {
            // Not written back as parseable text: left unchecked.
          }
        }
      }
    }
    for (int i = 0; i < SpelKeyLanguage.childrenAlwaysEvaluated(node); i++) {
      collect(node.getChild(i), parser, into);
    }
  }

  /** A variable other than {@code #root} and {@code #this}, then properties or plain getters. */
  private static boolean readsAnArgument(SpelNode operand) {
    SpelNode first = operand instanceof CompoundExpression ? operand.getChild(0) : operand;
    if (!(first instanceof VariableReference)
        || first.toStringAST().equals("#root")
        || first.toStringAST().equals("#this")) {
      return false;
    }
    for (int i = 1; operand instanceof CompoundExpression && i < operand.getChildCount(); i++) {
      SpelNode step = operand.getChild(i);
      boolean getter = step instanceof MethodReference && step.getChildCount() == 0;
      if (!(step instanceof PropertyOrFieldReference) && !getter) {
        return false;
      }
    }
    return true;
  }

  /**
   * Throws when a concatenated argument is null in this evaluation.
   *
   * @throws IllegalArgumentException naming the operand; the engine reports it as a key error
   */
  void checkNotNull(EvaluationContext context) {
    for (Operand operand : operands) {
      Object value;
      try {
        value = operand.reader().getValue(context);
      } catch (RuntimeException e) {
        continue; // the whole expression evaluated: this one is not for this call to judge
      }
      if (value == null) {
        throw new IllegalArgumentException(
            operand.text()
                + " is null, and a concatenation would write it as the text 'null', one lock for"
                + " every such call; pass a value, or say in the expression what a missing one"
                + " locks ("
                + operand.text()
                + " ?: 'none')");
      }
    }
  }
}
