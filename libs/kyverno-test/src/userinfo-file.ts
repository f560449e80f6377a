import type { RequestUser, UserInfo } from '@edict/engine';
import { Fields } from './io/fields';
import { readYamlFile } from './io/files';
import { LoadError } from './io/load-error';

/** Reads a UserInfo file: the RBAC roles and the admission user a test's requests carry. */
export function loadUserInfoFile(file: string): RequestUser {
  const documents = readYamlFile(file);
  if (documents.length !== 1)
    throw new LoadError(file, undefined, `expected one UserInfo document, found ${documents.length}`);
  const info = Fields.of(documents[0].value, file);
  info.rejectUnknown(['apiVersion', 'kind', 'metadata', 'roles', 'clusterRoles', 'userInfo']);
  const user: RequestUser = { roles: info.stringList('roles'), clusterRoles: info.stringList('clusterRoles') };
  const userInfo = info.object('userInfo');
  if (userInfo) {
    userInfo.rejectUnknown(['username', 'uid', 'groups', 'extra']);
    const parsed: UserInfo = {};
    const username = userInfo.string('username');
    const uid = userInfo.string('uid');
    if (username !== undefined) parsed.username = username;
    if (uid !== undefined) parsed.uid = uid;
    if (userInfo.has('groups')) parsed.groups = userInfo.stringList('groups');
    const extra = userInfo.object('extra');
    if (extra) {
      parsed.extra = {};
      for (const key of Object.keys(userInfo.map('extra') ?? {})) parsed.extra[key] = extra.stringList(key);
    }
    user.userInfo = parsed;
  }
  return user;
}
