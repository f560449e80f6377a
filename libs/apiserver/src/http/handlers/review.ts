/** POST of an access or token review: answered, never stored. */
import { pathNotFound } from '../../status';
import { answerReview } from '../../resources/reviews';
import type { ResourceHandler } from './resource-request';

export const review: ResourceHandler = async (api, request) => {
  const { type, namespace } = request.route;
  if (type.namespaced && namespace === undefined) throw pathNotFound();
  const body = (await request.body()) ?? null;
  request.send(201, answerReview(type, namespace, body, request.context, api.authorizationMode, api.store));
};
