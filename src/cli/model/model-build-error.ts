/** A build that cannot go ahead for a reason the user can fix: printed without a stack. */
export class ModelBuildError extends Error {
  override name = 'ModelBuildError';
}
